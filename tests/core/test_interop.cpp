// SPDX-License-Identifier: Apache-2.0
// from_blob and DLPack (issue #28): foreign memory as tensors without a copy, the deleter run
// once when the last view is gone, and the refusals. The round trips through PyTorch and
// NumPy are interop.dlpack_torch_numpy (tests/interop/).
#include <gtest/gtest.h>

#include <dlpack/dlpack.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

TEST(Interop, FromBlobSharesTheMemoryAndCallsTheDeleterOnceAtTheEnd) {
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  int deleted = 0;
  {
    Tensor t = from_blob(data.data(), {2, 3}, DType::float32, Device::cpu(), [&](void* p) {
      EXPECT_EQ(p, data.data());
      ++deleted;
    });
    Tensor column = t.narrow(1, 1, 1);
    t = Tensor{};
    EXPECT_EQ(column.to_vector<float>(), (std::vector<float>{2, 5}));
    column.copy_(full({2, 1}, 9.0f));
    synchronize(Device::cpu());
    EXPECT_EQ(data[1], 9.0f);
    EXPECT_EQ(data[4], 9.0f);
    EXPECT_EQ(deleted, 0);  // the view still holds the memory
  }
  EXPECT_EQ(deleted, 1);
  // Strides (a transposed view of the block) and a broadcast dimension.
  const Tensor tr = from_blob(data.data(), {3, 2}, {1, 3}, DType::float32);
  EXPECT_EQ(tr.to_vector<float>(), (std::vector<float>{1, 4, 9, 9, 3, 6}));
  const Tensor rows = from_blob(data.data(), {2, 3}, {0, 1}, DType::float32);
  EXPECT_EQ(rows.sum().item<float>(), 2 * (1 + 9 + 3));
  // Refusals, each without calling the deleter.
  int called = 0;
  auto count = [&](void*) { ++called; };
  EXPECT_THROW(from_blob(data.data(), {2, 3}, {3, -1}, DType::float32, Device::cpu(), count),
               ValueError);
  EXPECT_THROW(from_blob(data.data(), {2, 3}, {3}, DType::float32, Device::cpu(), count),
               ValueError);
  EXPECT_THROW(from_blob(nullptr, {2}, DType::float32, Device::cpu(), count), ValueError);
  EXPECT_THROW(from_blob(data.data(), {2}, DType::float32, Device("cuda:0"), count), Error);
  EXPECT_EQ(called, 0);
  EXPECT_EQ(from_blob(nullptr, {0, 3}, DType::float32).numel(), 0);
}

// Issue #44 item 10: the deleter ran when the last handle died although queued cpu work
// still read the memory (a use after free). Work above the inline limit is queued behind
// ~20 ms of other work; the deleter overwrites the memory, so a kernel that ran after it
// would see 100 instead of 0.5.
TEST(Interop, FromBlobDeleterRunsAfterTheQueuedWorkThatReadsIt) {
  constexpr std::int64_t n = std::int64_t{1} << 22;  // above HETERO_CPU_INLINE_LIMIT's default
  std::vector<float> data(static_cast<std::size_t>(n), 0.5f);
  bool deleted = false;
  Tensor busy = full({n}, 1.0f);
  for (int i = 0; i < 8; ++i) busy = busy * 1.0001f;  // queued on cpu:0's worker
  Tensor t = from_blob(data.data(), {n}, DType::float32, Device::cpu(), [&](void*) {
    std::fill(data.begin(), data.end(), 100.0f);
    deleted = true;
  });
  Tensor y = t.exp();
  t = Tensor{};
  const auto v = y.to_vector<float>();
  EXPECT_TRUE(deleted);
  EXPECT_EQ(v.front(), std::exp(0.5f));
  EXPECT_EQ(v.back(), std::exp(0.5f));
  EXPECT_EQ(std::count(v.begin(), v.end(), std::exp(0.5f)), n);
}

// Issue #44 item 15: strides whose extent overflows int64 (or whose bytes do) are refused,
// not wrapped to the first element.
TEST(Interop, FromBlobRefusesStridesThatOverflow) {
  std::vector<float> data(4, 1.0f);
  int called = 0;
  auto count = [&](void*) { ++called; };
  const std::int64_t big = std::int64_t{1} << 62;
  EXPECT_THROW(from_blob(data.data(), {3}, {big}, DType::float32, Device::cpu(), count),
               ValueError);
  EXPECT_THROW(
      from_blob(data.data(), {2, 2}, {INT64_MAX / 2 + 1, 1}, DType::float32, Device::cpu(), count),
      ValueError);
  EXPECT_THROW(
      from_blob(data.data(), {2}, {std::int64_t{1} << 61}, DType::float32, Device::cpu(), count),
      ValueError);  // 2^61 + 1 elements fit int64, their bytes do not
  EXPECT_THROW(
      from_blob(data.data(), {INT64_MAX, 2}, {1, INT64_MAX}, DType::uint8, Device::cpu(), count),
      Error);
  EXPECT_EQ(called, 0);
}

TEST(Interop, DlpackRoundTripSharesMemoryAndReleasesOnce) {
  Tensor x = arange(0, 12, 1, DType::float64).reshape({3, 4});
  const Tensor view = x.narrow(1, 1, 2);
  DLManagedTensor* m = to_dlpack(view);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(m->dl_tensor.dtype.bits, 64);
  EXPECT_EQ(m->dl_tensor.strides[0], 4);
  EXPECT_EQ(m->dl_tensor.byte_offset, 0u);
  EXPECT_EQ(*static_cast<double*>(m->dl_tensor.data), 1.0);  // the view's first element
  {
    Tensor back = from_dlpack(m);  // owns m now
    EXPECT_EQ(back.to_vector<double>(), view.to_vector<double>());
    back.copy_(zeros({3, 2}, DType::float64));
  }
  EXPECT_EQ(x.sum().item<double>(), 0 + 3 + 4 + 7 + 8 + 11);  // the write reached x
  // bool goes as uint8 (DLPack 0.6 has no bool code, as torch 1.13).
  DLManagedTensor* b = to_dlpack(full({2}, 1.0, DType::bool_));
  EXPECT_EQ(b->dl_tensor.dtype.code, kDLUInt);
  EXPECT_EQ(from_dlpack(b).dtype(), DType::uint8);
  // A dtype hetero lacks: DTypeError, and the producer's deleter still runs.
  static int released = 0;
  DLManagedTensor odd{};
  odd.dl_tensor.dtype = {kDLInt, 16, 1};
  odd.dl_tensor.device = {kDLCPU, 0};
  odd.deleter = [](DLManagedTensor*) { ++released; };
  EXPECT_THROW(from_dlpack(&odd), DTypeError);
  EXPECT_EQ(released, 1);
  odd.dl_tensor.dtype = {kDLFloat, 32, 1};
  odd.dl_tensor.device = {kDLOpenCL, 0};  // no import path for OpenCL memory
  EXPECT_THROW(from_dlpack(&odd), NotImplementedError);
  EXPECT_EQ(released, 2);
  odd.dl_tensor.device = {kDLCUDA, 0};  // imported through the cuda backend's adopt: not null
  EXPECT_THROW(from_dlpack(&odd), ValueError);
  EXPECT_EQ(released, 3);
  EXPECT_THROW(from_dlpack(nullptr), ValueError);
  // An offset is not added to a null data pointer (0x10 was read as memory), and an offset
  // that wraps the address space is refused; the deleter runs each time.
  float values[3] = {1, 2, 3};
  std::int64_t shape[1] = {3};
  odd.dl_tensor = DLTensor{nullptr, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 16};
  EXPECT_THROW(from_dlpack(&odd), ValueError);
  EXPECT_EQ(released, 4);
  odd.dl_tensor.data = values;
  odd.dl_tensor.byte_offset = ~std::uint64_t{0};
  EXPECT_THROW(from_dlpack(&odd), ValueError);
  EXPECT_EQ(released, 5);
  odd.dl_tensor.byte_offset = sizeof(float);  // honoured: the view starts at values[1]
  shape[0] = 2;
  EXPECT_EQ(from_dlpack(&odd).to_vector<float>(), (std::vector<float>{2, 3}));
  EXPECT_EQ(released, 6);
}
