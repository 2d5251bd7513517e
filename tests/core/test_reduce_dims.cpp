// SPDX-License-Identifier: Apache-2.0
// Reductions over a list of dimensions (torch's dim=(0, 2)): sum, mean, amax, amin, var and
// std, their gradients and errors, against torch 1.13's results (quoted beside each case, from
// x = torch.arange(24., dtype=torch.float64).reshape(2, 3, 4)). The differential test
// (tests/torch_diff) draws random lists as well.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

Tensor arange24() {
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i) v[static_cast<std::size_t>(i)] = i;
  return from_vector<double>(v, {2, 3, 4}).requires_grad_();
}

const Tensor& weights() {
  static const Tensor w = from_vector<double>({1, 2, 3}, {3});
  return w;
}

}  // namespace

TEST(ReduceDims, SumAndMeanReduceTheListedDimensionsWithTorchsGradients) {
  Tensor x = arange24();
  // x.sum((0, 2)): [60, 92, 124]; (s * w).sum().backward(): x.grad[i, j, k] = w[j]
  const Tensor s = sum(x, {0, 2});
  EXPECT_EQ(s.shape(), (Shape{3}));
  EXPECT_EQ(s.to_vector<double>(), (std::vector<double>{60, 92, 124}));
  (s * weights()).sum().backward();
  EXPECT_EQ(x.grad()[0].narrow(1, 3, 1).to_vector<double>(), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(x.grad().sum().item<double>(), 2 * 4 * 6);
  // x.mean((0, -1)): [7.5, 11.5, 15.5]; gradient w[j] / 8 (x.grad[1, 2] = 0.375)
  Tensor y = arange24();
  const Tensor m = y.mean({0, -1});
  EXPECT_EQ(m.to_vector<double>(), (std::vector<double>{7.5, 11.5, 15.5}));
  (m * weights()).sum().backward();
  EXPECT_EQ(y.grad()[1][2].to_vector<double>(), (std::vector<double>(4, 0.375)));
  // keepdim keeps them as 1; an empty list reduces every dimension (x.sum([]): 276)
  EXPECT_EQ(sum(x, {2, 0}, true).shape(), (Shape{1, 3, 1}));
  EXPECT_EQ(x.sum(std::vector<std::int64_t>{}).item<double>(), 276);
  EXPECT_EQ(x.sum(std::vector<std::int64_t>{}).dim(), 0);
}

TEST(ReduceDims, ListedDimensionsOfAStridedViewAreTheSameAsOfItsCopy) {
  const Tensor x = arange24().detach().transpose(0, 2);  // [4, 3, 2], not contiguous
  for (const std::vector<std::int64_t>& dims :
       {std::vector<std::int64_t>{0, 2}, {1}, {0, 1}, {1, 2}, {0, 1, 2}}) {
    EXPECT_EQ(sum(x, dims).to_vector<double>(), sum(x.contiguous(), dims).to_vector<double>());
    EXPECT_EQ(amax(x, dims).to_vector<double>(), amax(x.contiguous(), dims).to_vector<double>());
  }
}

TEST(ReduceDims, AmaxAndAminShareTheGradientAmongTies) {
  Tensor x = arange24();
  // x.amax((0, 2)): [15, 19, 23]; gradient w[j] at [1, j, 3]
  const Tensor a = amax(x, {0, 2});
  EXPECT_EQ(a.to_vector<double>(), (std::vector<double>{15, 19, 23}));
  (a * weights()).sum().backward();
  EXPECT_EQ(x.grad()[1].narrow(1, 3, 1).to_vector<double>(), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(x.grad().sum().item<double>(), 6);
  EXPECT_EQ(x.detach().amin({0, 2}).to_vector<double>(), (std::vector<double>{0, 4, 8}));
  // torch.ones(2, 2).amin((0, 1)).backward(): 0.25 each
  Tensor ones_x = ones({2, 2}, TensorOptions().dtype(DType::float64)).requires_grad_();
  amin(ones_x, {0, 1}).backward();
  EXPECT_EQ(ones_x.grad().to_vector<double>(), (std::vector<double>(4, 0.25)));
  // Every dimension by default; bool stays bool (torch.amax of bool: tensor(True))
  EXPECT_EQ(amax(x.detach()).item<double>(), 23);
  const Tensor flags = from_vector<std::uint8_t>({1, 0, 0, 0}, {2, 2}).to(DType::bool_);
  EXPECT_EQ(amax(flags, {0, 1}).dtype(), DType::bool_);
  EXPECT_TRUE(amax(flags, {0, 1}).item<bool>());
  // NaN propagates
  const Tensor with_nan = from_vector<float>({1, NAN, 3, 4}, {2, 2});
  EXPECT_TRUE(std::isnan(amax(with_nan, {0, 1}).item<float>()));
  const std::vector<float> columns = amin(with_nan, {0}).to_vector<float>();  // [1, nan]
  EXPECT_EQ(columns[0], 1.0f);
  EXPECT_TRUE(std::isnan(columns[1]));
}

TEST(ReduceDims, VarAndStdOverTheListedDimensions) {
  Tensor x = arange24();
  // x.var((0, 2)): 42.5714 each (298 / 7); v.sum().backward(): x.grad[0, 0] =
  // 2 (x - mean) / 7 = [-2.1429, -1.8571, -1.5714, -1.2857]
  const Tensor v = var(x, {0, 2}, 1);
  for (double e : v.to_vector<double>()) EXPECT_NEAR(e, 298.0 / 7, 1e-12);
  v.sum().backward();
  const std::vector<double> g = x.grad()[0][0].to_vector<double>();
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(g[static_cast<std::size_t>(k)], 2 * (k - 7.5) / 7, 1e-12);
  // torch.std(x, (0, 2), correction=0, keepdim=True): [1, 3, 1] of sqrt(37.25) = 6.1033
  const Tensor s = hetero::std(x.detach(), {0, 2}, 0, true);
  EXPECT_EQ(s.shape(), (Shape{1, 3, 1}));
  for (double e : s.to_vector<double>()) EXPECT_NEAR(e, std::sqrt(37.25), 1e-12);
  // A list of one dimension gives the one-dimension overload's result (a braced {1} alone
  // would pick that overload itself)
  EXPECT_EQ(var(x.detach(), std::vector<std::int64_t>{1}, 1).to_vector<double>(),
            var(x.detach(), 1, 1).to_vector<double>());
}

TEST(ReduceDims, BadListsAreTypedErrors) {
  const Tensor x = arange24().detach();
  // torch: RuntimeError "dim 0 appears multiple times in the list of dims"
  EXPECT_THROW(sum(x, {0, -3}), ValueError);
  EXPECT_THROW(amax(x, {1, 1}), ValueError);
  EXPECT_THROW(var(x, {2, -1}, 1), ValueError);
  EXPECT_THROW(mean(x, {0, 3}), IndexError);
  EXPECT_THROW(amin(x, {-4}), IndexError);
  // mean of integers: DTypeError, as the one-dimension overload
  EXPECT_THROW(mean(x.to(DType::int64), {0, 1}), DTypeError);
  // torch: IndexError "amax(): Expected reduction dim 0 to have non-zero size."
  EXPECT_THROW(amax(zeros({0, 3}), {0}), ShapeError);
  // The message names the op called (it said "max()")
  try {
    amin(zeros({2, 0, 3}), {1});
    ADD_FAILURE() << "amin of an empty range did not throw";
  } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("amin(): cannot reduce an empty range", 0), 0)
        << e.what();
  }
  // the sum of an empty range is 0 (as torch)
  EXPECT_EQ(sum(zeros({0, 3}), {0}).to_vector<float>(), (std::vector<float>(3, 0.0f)));
  // A 0-d tensor takes 0 and -1, once
  const Tensor scalar = full({}, 2.5);
  EXPECT_EQ(sum(scalar, std::vector<std::int64_t>{0}).item<double>(), 2.5);
  EXPECT_EQ(amax(scalar, {-1}, true).dim(), 0);
  EXPECT_THROW(sum(scalar, {0, -1}), ValueError);
}
