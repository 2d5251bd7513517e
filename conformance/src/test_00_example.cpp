// SPDX-License-Identifier: Apache-2.0
// The first conformance test, written out as an example for backend authors: every
// other test in the kit follows this pattern.
#include <cmath>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>

namespace hetero::conformance {

// Each test is a TEST_P on BackendTest: GoogleTest runs it once per backend under test
// (GetParam() is the backend's name, e.g. "cpu"). SetUp() has already found the backend
// and skipped the test if it has no device, so the body may assume device 0 exists.
TEST_P(BackendTest, ExampleAddTwoVectors) {
  // 1. Choose a size that is not a multiple of any vector width (so tail loops run).
  const std::int64_t n = 37;

  // 2. Make host inputs. sample_values gives deterministic values of a dtype, as doubles.
  const auto a = sample_values(DType::float32, n, /*seed=*/1);
  const auto b = sample_values(DType::float32, n, /*seed=*/2);

  // 3. Allocate device buffers through the backend and upload. DeviceArray owns a
  //    Buffer from Backend::allocate; the pad of 3 elements puts the data at an
  //    unaligned offset, which every kernel must accept.
  DeviceArray da(backend(), 0, DType::float32, n, /*pad_elements=*/3);
  DeviceArray db(backend(), 0, DType::float32, n, 3);
  DeviceArray dc(backend(), 0, DType::float32, n, 3);
  da.upload(pack(DType::float32, a).data());
  db.upload(pack(DType::float32, b).data());

  // 4. Call the kernel exactly as the core would: views of equal shape, queued on the
  //    device's stream.
  backend().binary(BinaryOp::add, da.view({n}), db.view({n}), dc.view({n}), stream());

  // 5. Read back (download synchronises the stream) and compare with a reference
  //    computed in double, at the stated tolerance: float32 addition is exact to
  //    half an ulp, so 1e-6 relative is generous. ElementsNear (matchers.hpp) reports how
  //    many elements differ and the first few, with the operands there; case_name() names
  //    the op, dtype, device and shape, so that the failure alone says what broke.
  std::vector<unsigned char> raw(static_cast<std::size_t>(n) * 4);
  dc.download(raw.data());
  const auto c = unpack(DType::float32, raw);
  std::vector<double> expected(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < expected.size(); ++i)
    expected[i] = static_cast<double>(static_cast<float>(a[i] + b[i]));
  EXPECT_THAT(c, ElementsNear(expected, [](double e) { return 1e-6 * (1 + std::abs(e)); }, {n},
                              {{"a", a}, {"b", b}}))
      << case_name("add", DType::float32, {n});
}

// The suite is instantiated once, for the backends run() registered.
INSTANTIATE_TEST_SUITE_P(Backends, BackendTest, ::testing::ValuesIn(backends_under_test()),
                         [](const auto& info) { return info.param; });

}  // namespace hetero::conformance
