// SPDX-License-Identifier: Apache-2.0
// Every copy direction, with unaligned byte offsets.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>

namespace hetero::conformance {
namespace {
std::vector<unsigned char> bytes_pattern(std::size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<unsigned char>((i * 131 + seed * 17) & 0xff);
  return v;
}

// Bytes as the doubles the matchers compare.
std::vector<double> as_values(std::vector<unsigned char>::const_iterator first, std::size_t n) {
  return {first, first + static_cast<std::ptrdiff_t>(n)};
}
}  // namespace

TEST_P(BackendTest, HostToDeviceToHostWithOffsets) {
  for (std::size_t n : {1ul, 7ul, 1000ul, 65537ul})
    for (std::size_t off : {0ul, 1ul, 3ul}) {
      const auto src = bytes_pattern(n, 1);
      auto buf = backend().allocate(0, n + off + 5);
      backend().copy_host_to_device(src.data(), *buf, off, n, stream());
      std::vector<unsigned char> back(n + 2, 0xEE);
      backend().copy_device_to_host(*buf, off, back.data() + 1, n, stream());
      stream().synchronize();
      const auto n64 = static_cast<std::int64_t>(n);
      EXPECT_THAT(as_values(back.begin() + 1, n), ElementsEqual(as_values(src.begin(), n), {n64}))
          << case_name("copy host -> device -> host of bytes", DType::uint8, {n64})
          << ", device offset " << off << " bytes";
      EXPECT_EQ(back[0], 0xEE) << case_name("copy device -> host", DType::uint8, {n64})
                               << ": wrote before the destination";
      EXPECT_EQ(back[n + 1], 0xEE)
          << case_name("copy device -> host", DType::uint8, {n64}) << ": wrote past the end";
    }
}

TEST_P(BackendTest, DeviceToDeviceSameDeviceWithOffsets) {
  const std::size_t n = 4099;
  const auto src = bytes_pattern(n, 2);
  auto a = backend().allocate(0, n + 3);
  auto b = backend().allocate(0, n + 9);
  backend().copy_host_to_device(src.data(), *a, 3, n, stream());
  backend().copy_device_to_device(*a, 3, *b, 9, n, stream());
  std::vector<unsigned char> back(n);
  backend().copy_device_to_host(*b, 9, back.data(), n, stream());
  stream().synchronize();
  EXPECT_THAT(as_values(back.begin(), n), ElementsEqual(as_values(src.begin(), n), {4099}))
      << case_name("copy device -> device of bytes, offsets 3 -> 9", DType::uint8, {4099});
}

TEST_P(BackendTest, DeviceToDeviceAcrossDevices) {
  if (backend().device_count() < 2) GTEST_SKIP() << "needs two devices of this backend";
  const std::size_t n = 10007;
  const auto src = bytes_pattern(n, 3);
  auto a = backend().allocate(0, n);
  auto b = backend().allocate(1, n + 1);
  backend().copy_host_to_device(src.data(), *a, 0, n, stream());
  auto ready = stream().record();
  Stream& s1 = backend().default_stream(1);
  s1.wait(*ready);
  backend().copy_device_to_device(*a, 0, *b, 1, n, s1);
  std::vector<unsigned char> back(n);
  backend().copy_device_to_host(*b, 1, back.data(), n, s1);
  s1.synchronize();
  EXPECT_THAT(as_values(back.begin(), n), ElementsEqual(as_values(src.begin(), n), {10007}))
      << case_name("copy device 0 -> device 1 of bytes", DType::uint8, {10007});
}

TEST_P(BackendTest, StridedCopyAndCastEveryDtypePair) {
  // A transposed 5x7 source (strides {1, 5}) into a contiguous 5x7 destination.
  const std::vector<std::int64_t> shape{5, 7};
  for (DType s : all_dtypes())
    for (DType d : all_dtypes()) {
      if (!runs(OpFamily::cast, s) || !runs(OpFamily::cast, d)) continue;
      const auto values = sample_values(s, 35, 11);
      DeviceArray src(backend(), 0, s, 35, 1), dst(backend(), 0, d, 35, 2);
      src.upload(pack(s, values).data());
      const StridedView sv = src.view(shape, {1, 5});
      backend().cast(sv, dst.view(shape), stream());  // equal dtypes: the strided copy
      std::vector<unsigned char> raw(35 * element_size(d));
      dst.download(raw.data());
      const auto out = unpack(d, raw);
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j) {
          double v = values[static_cast<std::size_t>(i + 5 * j)];
          if (d == DType::bool_)
            v = v != 0;
          else if (is_floating_point(d))
            v = round_to(d, v);
          else if (is_floating_point(s))  // truncated, saturated (values here are small)
            v = d == DType::uint8 ? std::max(std::trunc(v), 0.0) : std::trunc(v);
          else  // integer to integer wraps: int8 -50 is uint8 206
            v = round_to(d, v);
          ASSERT_EQ(out[static_cast<std::size_t>(i * 7 + j)], v)
              << case_name(
                     std::string("cast from ") + std::string(dtype_name(s)) + " (strides 1, 5) to",
                     d, shape)
              << ": element [" << i << ", " << j << "], input "
              << values[static_cast<std::size_t>(i + 5 * j)];
        }
    }
}

TEST_P(BackendTest, FillEveryDtypeAndShape) {
  for (DType t : all_dtypes())
    for (const auto& shape : test_shapes()) {
      if (!runs(OpFamily::fill, t)) continue;
      std::int64_t n = 1;
      for (auto s : shape) n *= s;
      DeviceArray a(backend(), 0, t, n, 1);
      backend().fill(a.view(shape), Scalar{3.0, 3}, stream());
      std::vector<unsigned char> raw(static_cast<std::size_t>(n) * element_size(t));
      a.download(raw.data());
      EXPECT_THAT(unpack(t, raw), ElementsEqual(std::vector<double>(raw.size() / element_size(t),
                                                                    t == DType::bool_ ? 1.0 : 3.0),
                                                shape))
          << case_name("fill with 3", t, shape);
    }
}

}  // namespace hetero::conformance
