// SPDX-License-Identifier: Apache-2.0
// sum / mean with a dtype (torch.sum(x, dim, keepdim, dtype=...)): values, dtypes and errors
// as torch 1.13 gives them (each case's torch result is quoted beside it), and the cpu
// plugin's direct path, which sums float16 and bfloat16 into float32 with no converted copy.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

// Whether a profile of cpu work holds a conversion kernel.
bool converted(const std::vector<profiler::Event>& events) {
  for (const profiler::Event& e : events)
    if (e.category == "kernel" && e.name == "cast") return true;
  return false;
}

}  // namespace

TEST(ReduceDType, ValuesAndDTypesAreTorchs) {
  const Tensor x = from_vector<float>({1, 2, 3, 4, 5, 6.5}, {2, 3}).to(DType::bfloat16);
  // torch.sum(x, dtype=torch.float32): tensor(21.5000)
  const Tensor all = x.sum(DType::float32);
  EXPECT_EQ(all.dtype(), DType::float32);
  EXPECT_EQ(all.dim(), 0);
  EXPECT_EQ(all.item<float>(), 21.5f);
  // torch.sum(x, 1, dtype=torch.float32): tensor([ 6.0000, 15.5000])
  const Tensor rows = sum(x, 1, false, DType::float32);
  EXPECT_EQ(rows.dtype(), DType::float32);
  EXPECT_EQ(rows.to_vector<float>(), (std::vector<float>{6, 15.5}));
  // torch.mean(x, 0, True, dtype=torch.float32): tensor([[2.5000, 3.5000, 4.7500]])
  const Tensor cols = x.mean(0, true, DType::float32);
  EXPECT_EQ(cols.shape(), (Shape{1, 3}));
  EXPECT_EQ(cols.to_vector<float>(), (std::vector<float>{2.5, 3.5, 4.75}));
  // The same dtype is the plain op; float32 into float64 converts first.
  EXPECT_TRUE(equal(x.sum(1, false, DType::bfloat16), x.sum(1)));
  const Tensor f = from_vector<float>({0.1f, 0.2f, 0.3f});
  EXPECT_EQ(f.sum(DType::float64).item<double>(), f.to(DType::float64).sum().item<double>());
  // Integer and bool dtypes wrap as a conversion does:
  // torch.sum(torch.tensor([200, 100], dtype=torch.uint8), dtype=torch.uint8): tensor(44)
  const Tensor u = from_vector<std::uint8_t>({200, 100});
  EXPECT_EQ(u.sum(DType::uint8).dtype(), DType::uint8);
  EXPECT_EQ(u.sum(DType::uint8).item<std::uint8_t>(), 44);
  // torch.sum(torch.tensor([False, True]), dtype=torch.bool): tensor(True)
  const Tensor b = from_vector<float>({0, 1}).to(DType::bool_);
  EXPECT_EQ(b.sum(DType::bool_).dtype(), DType::bool_);
  EXPECT_TRUE(b.sum(DType::bool_).item<bool>());
  EXPECT_FALSE(zeros({4}).to(DType::bool_).sum(DType::bool_).item<bool>());
  // torch.sum(torch.tensor([1.5, 2.7, -0.9]), dtype=torch.int32): tensor(3, dtype=int32)
  const Tensor t = from_vector<float>({1.5f, 2.7f, -0.9f}).sum(DType::int32);
  EXPECT_EQ(t.dtype(), DType::int32);
  EXPECT_EQ(t.item<std::int32_t>(), 3);
  // torch.mean(torch.tensor([1, 2]), dtype=torch.float32): tensor(1.5000)
  EXPECT_EQ(from_vector<std::int64_t>({1, 2}).mean(DType::float32).item<float>(), 1.5f);
}

TEST(ReduceDType, MeanRefusesANonFloatingDType) {
  // torch: "mean(): could not infer output dtype. Optional dtype must be either a floating
  // point or complex dtype. Got: Long"
  const Tensor x = from_vector<std::int64_t>({1, 2});
  try {
    (void)x.mean(DType::int64);
    FAIL() << "expected DTypeError";
  } catch (const DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("int64"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)mean(ones({2, 2}), 0, false, DType::bool_), DTypeError);
}

TEST(ReduceDType, EmptyTensorsGiveTheIdentity) {
  // torch.sum(torch.tensor([], dtype=torch.bfloat16), dtype=torch.float32): tensor(0.)
  const Tensor e = empty({0, 3}, TensorOptions().dtype(DType::bfloat16));
  EXPECT_EQ(e.sum(DType::float32).dtype(), DType::float32);
  EXPECT_EQ(e.sum(DType::float32).item<float>(), 0.0f);
  EXPECT_EQ(e.sum(0, false, DType::float32).to_vector<float>(), (std::vector<float>{0, 0, 0}));
  // torch.mean(torch.tensor([], dtype=torch.bfloat16), dtype=torch.float32): tensor(nan)
  EXPECT_TRUE(std::isnan(e.mean(DType::float32).item<float>()));
}

// The 16-bit floats summed as float32 round once: 4096 x bfloat16(0.1) is 409.6 as float32
// (torch: 410. in bfloat16, tensor(410.) as float32, whose printing rounds), at sizes past
// the vector blocks and the thread split, on the one-output, column and row paths, equal to
// the sums of a float32 copy; on cpu without a conversion kernel.
TEST(ReduceDType, SixteenBitFloatsSumAsFloat32WithoutAConvertedCopy) {
  constexpr std::int64_t R = 1031, C = 2053;
  manual_seed(11);
  const Tensor base = randn({R, C});
  for (DType dt : {DType::bfloat16, DType::float16}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor x = base.to(dt), wide = x.to(DType::float32);
    profiler::start();
    const Tensor all = x.sum(DType::float32), by_col = x.sum(0, false, DType::float32),
                 by_row = x.sum(1, true, DType::float32), means = x.mean(1, false, DType::float32);
    const auto events = profiler::stop();
    if (x.device().type() == "cpu") {
      EXPECT_FALSE(converted(events)) << "converted first";
    }
    EXPECT_EQ(all.dtype(), DType::float32);
    EXPECT_EQ(by_row.shape(), (Shape{R, 1}));
    EXPECT_NEAR(all.item<float>(), wide.sum().item<float>(), 1e-6 * R * C);
    EXPECT_TRUE(allclose(by_col, wide.sum(0), 1e-6, 1e-5));
    EXPECT_TRUE(allclose(by_row, wide.sum(1, true), 1e-6, 1e-5));
    EXPECT_TRUE(allclose(means, wide.mean(1), 1e-6, 1e-7));
    // A transposed view takes the same paths.
    EXPECT_TRUE(allclose(x.t().sum(1, false, DType::float32), wide.sum(0), 1e-6, 1e-5));
  }
  const Tensor tenth = full({4096}, 0.1).to(DType::bfloat16);
  EXPECT_EQ(tenth.sum(DType::float32).item<float>(), tenth.to(DType::float32).sum().item<float>());
  EXPECT_EQ(tenth.sum().item<float>(), 410.0f);  // summed in float, rounded to bfloat16
}

TEST(ReduceDType, TheGradientReachesTheInputInItsDType) {
  // y = torch.ones(2, 3, dtype=torch.bfloat16, requires_grad=True)
  // (y.sum(1, dtype=torch.float32) * torch.tensor([2., 3.])).sum().backward()
  // y.grad: [[2., 2., 2.], [3., 3., 3.]], dtype=torch.bfloat16
  for (DType to : {DType::float32, DType::float64}) {  // direct on cpu, and converted first
    SCOPED_TRACE(dtype_name(to));
    Tensor y = ones({2, 3}, TensorOptions().dtype(DType::bfloat16)).requires_grad_(true);
    const Tensor s = y.sum(1, false, to);
    ASSERT_TRUE(s.requires_grad());
    (s * from_vector<double>({2, 3}).to(to)).sum().backward();
    ASSERT_TRUE(y.grad().defined());
    EXPECT_EQ(y.grad().dtype(), DType::bfloat16);
    EXPECT_EQ(y.grad().to(DType::float32).to_vector<float>(),
              (std::vector<float>{2, 2, 2, 3, 3, 3}));
    Tensor z = ones({4}, TensorOptions().dtype(DType::float16)).requires_grad_(true);
    z.mean(to).backward();
    EXPECT_EQ(z.grad().dtype(), DType::float16);
    EXPECT_EQ(z.grad().to(DType::float32).to_vector<float>(),
              (std::vector<float>{0.25, 0.25, 0.25, 0.25}));
  }
}
