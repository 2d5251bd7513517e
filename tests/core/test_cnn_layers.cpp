// SPDX-License-Identifier: Apache-2.0
// The next chapter's layers and views (issue #27): LayerNorm, Tanh and Softmax against
// their formulas, Conv2d's and the pools' shapes and initialisation, and the refusals of
// permute, expand and flatten (as torch's). Values and gradients against torch are in
// torch_conv.* and the differential test; gradients against finite differences in
// test_autograd.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include <hetero/hetero.hpp>

using namespace hetero;

TEST(CnnLayers, LayerNormNormalisesTheTrailingDimensions) {
  nn::LayerNorm ln({2, 3});
  const Tensor x = arange(0.0, 12.0).reshape({2, 2, 3}) * 1.5 + 0.25;
  const auto y = ln(x).to_vector<double>();
  ASSERT_EQ(y.size(), 12u);
  // Each group of 6 is an arithmetic run with step 1.5: mean 0 and biased variance 1 after.
  for (int g = 0; g < 2; ++g) {
    double m = 0, v = 0;
    for (int i = 0; i < 6; ++i) m += y[static_cast<std::size_t>(g * 6 + i)] / 6;
    for (int i = 0; i < 6; ++i) v += std::pow(y[static_cast<std::size_t>(g * 6 + i)] - m, 2) / 6;
    EXPECT_NEAR(m, 0, 1e-6);
    EXPECT_NEAR(v, 1, 1e-4);  // eps 1e-5 over a variance of 6.5625
  }
  EXPECT_EQ(ln.named_parameters().size(), 2u);
  EXPECT_THROW(ln(zeros({2, 3, 2})), ShapeError);
  EXPECT_THROW(ln(zeros({2, 3}, DType::int64)), DTypeError);
  EXPECT_THROW(nn::LayerNorm(Shape{}), ValueError);
  EXPECT_THROW(nn::LayerNorm({-1}), ValueError);
  // A zero size is allowed, as torch 1.13's: empty results, empty weight gradients.
  nn::LayerNorm none({2, 0});
  Tensor e = randn({3, 2, 0}).requires_grad_();
  const Tensor ey = none(e);
  EXPECT_EQ(ey.shape(), (Shape{3, 2, 0}));
  ey.sum().backward();
  EXPECT_EQ(none.named_parameters().at("weight").grad().shape(), (Shape{2, 0}));
  EXPECT_EQ(e.grad().shape(), (Shape{3, 2, 0}));
  nn::LayerNorm plain({3}, 1e-5, false);
  EXPECT_EQ(plain.named_parameters().size(), 0u);
  EXPECT_EQ(ln(x.to(DType::bfloat16)).dtype(), DType::bfloat16);
}

TEST(CnnLayers, TanhAndSoftmaxLayers) {
  const Tensor x = tensor({-1.0, 0.5, 2.0});
  EXPECT_TRUE(allclose(nn::Tanh()(x), tanh(x)));
  EXPECT_TRUE(allclose(nn::Softmax(0)(x), softmax(x, 0)));
  EXPECT_THROW(nn::Softmax(1)(x), IndexError);
}

TEST(CnnLayers, Conv2dAndPoolShapesAndInitialisation) {
  manual_seed(3);
  nn::Conv2d conv(4, 6, {3, 2}, {.stride = 2, .padding = {1, 0}, .groups = 2});
  EXPECT_EQ(conv.weight().shape(), (Shape{6, 2, 3, 2}));
  EXPECT_EQ(conv.bias().shape(), (Shape{6}));
  const double bound = 1 / std::sqrt(2.0 * 3 * 2);  // fan_in = 4 / 2 * 3 * 2
  EXPECT_LE(conv.weight().abs().max().item<double>(), bound);
  EXPECT_EQ(conv(zeros({5, 4, 9, 8})).shape(), (Shape{5, 6, 5, 4}));
  EXPECT_EQ(conv(zeros({4, 9, 8})).shape(), (Shape{6, 5, 4}));   // unbatched
  EXPECT_THROW(conv(zeros({5, 3, 9, 8})), ShapeError);           // channels
  EXPECT_THROW(nn::Conv2d(4, 6, 3, {.groups = 4}), ValueError);  // 6 % 4
  EXPECT_THROW(nn::Conv2d(0, 6, 3), ValueError);
  EXPECT_EQ(nn::MaxPool2d(2)(zeros({1, 3, 7, 7})).shape(), (Shape{1, 3, 3, 3}));
  EXPECT_EQ(nn::MaxPool2d(2, {.ceil_mode = true})(zeros({1, 3, 7, 7})).shape(),
            (Shape{1, 3, 4, 4}));
  EXPECT_EQ(nn::AvgPool2d(3, {.stride = 1, .padding = 1})(zeros({2, 5, 5})).shape(),
            (Shape{2, 5, 5}));
  EXPECT_EQ(nn::AdaptiveAvgPool2d({1, 1})(ones({2, 3, 5, 4})).shape(), (Shape{2, 3, 1, 1}));
  EXPECT_THROW(max_pool2d(zeros({1, 1, 4, 4}, DType::int64), 2), NotImplementedError);
  EXPECT_THROW(avg_pool2d(zeros({1, 1, 4, 4}), 2, std::nullopt, 2), ValueError);  // pad > k / 2
  EXPECT_THROW(conv2d(zeros({1, 1, 4, 4}), zeros({1, 1, 5, 5})), ShapeError);
  EXPECT_THROW(conv2d(zeros({1, 1, 4, 4}), zeros({1, 1, 2, 2}, DType::float64)), DTypeError);
  EXPECT_THROW(conv2d(zeros({1, 1, 4, 4}), zeros({1, 1, 2, 2}), {}, 0), ValueError);
}

TEST(CnnLayers, ViewsRefuseWhatTorchRefuses) {
  const Tensor x = zeros({2, 3});
  EXPECT_EQ(x.permute({1, 0}).shape(), (Shape{3, 2}));
  EXPECT_EQ(x.permute({-1, 0}).strides(), (std::vector<std::int64_t>{1, 3}));
  EXPECT_THROW(x.permute({0}), ShapeError);
  EXPECT_THROW(x.permute({0, 0}), ValueError);
  EXPECT_THROW(x.permute({0, 2}), IndexError);
  EXPECT_EQ(x.expand({4, 2, -1}).shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(x.expand({4, 2, -1}).strides(), (std::vector<std::int64_t>{0, 3, 1}));
  EXPECT_THROW(x.expand({2, 4}), ShapeError);
  EXPECT_THROW(x.expand({3}), ShapeError);
  EXPECT_THROW(x.expand({-1, 2, 3}), ShapeError);
  // docs/semantics.md row 33: also beside a 0-sized dimension (torch 1.13 returns size -1).
  EXPECT_THROW(full({}, 1.0).expand({-1, 0}), ShapeError);
  EXPECT_EQ(zeros({2, 3, 4}).flatten(1).shape(), (Shape{2, 12}));
  EXPECT_EQ(full({}, 1.0).flatten().shape(), (Shape{1}));
  EXPECT_THROW(x.flatten(1, 0), ValueError);
  EXPECT_THROW(x.flatten(2), IndexError);
}

TEST(CnnLayers, ArgminVarStdLogsumexpEdges) {
  // argmin is exact at the dtype's extremes (the order-reversing maps do not overflow).
  const Tensor i64 =
      from_vector(std::vector<std::int64_t>{5, INT64_MIN, INT64_MAX, INT64_MIN}, {4});
  EXPECT_EQ(argmin(i64).item<std::int64_t>(), 1);
  EXPECT_EQ(argmin(from_vector(std::vector<std::uint8_t>{7, 255, 0, 0}, {4})).item<std::int64_t>(),
            2);
  EXPECT_EQ(argmin(tensor({1.0, NAN, -INFINITY})).item<std::int64_t>(), 1);  // NaN is the minimum
  EXPECT_THROW(argmin(tensor({1, 0}).to(DType::bool_)), DTypeError);
  EXPECT_TRUE(std::isnan(var(tensor({2.0})).item<double>()));  // N - correction = 0
  EXPECT_FLOAT_EQ(var(tensor({1.0, 2.0, 4.0}), 0).item<float>(), 14.0f / 9.0f);  // float32
  EXPECT_THROW(var(tensor({1, 2})), DTypeError);
  // float32 values whose squares overflow float32: computed in float64.
  EXPECT_NEAR(hetero::std(tensor({-2.5e38f, 0.0f}), 1).item<double>(), 1.7677669e38, 1e32);
  // No elements: NaN whatever the correction, as torch (a negative one gave 0).
  EXPECT_TRUE(std::isnan(var(zeros({0}), -1).item<float>()));
  EXPECT_TRUE(std::isnan(hetero::std(zeros({2, 0}), 1, -3, false).to_vector<float>()[1]));
  EXPECT_EQ(logsumexp(tensor({1, 2}), 0).dtype(), DType::float32);
  EXPECT_EQ(logsumexp(tensor({-INFINITY, -INFINITY}), 0).item<double>(), -INFINITY);
  EXPECT_EQ(logsumexp(tensor({INFINITY, 1.0}), 0).item<double>(), INFINITY);
  EXPECT_EQ(logsumexp(zeros({0, 3}), 0).shape(), (Shape{3}));
  EXPECT_EQ(logsumexp(zeros({0, 3}), 0).max().item<double>(), -INFINITY);
}

// Equal values vary by exactly 0: their mean alone may be an ulp off (5 copies of 1/sqrt(1.5)
// sum to a mean 1.1e-16 below), which made var 1e-32 and the gradient of a function of std
// O(1) where torch's (Welford along a dimension) gives 0 (differential test seed 1130220
// case 11657: reciprocal(|std(rsqrt(|x| + 0.5), -1)| + 0.5) at x = [-1, 1, 1, -1, 1]).
TEST(CnnLayers, VarAndStdOfEqualValuesAreExactlyZero) {
  const double v = 1.0 / std::sqrt(1.5);
  const Tensor rows = full({2, 5}, v, TensorOptions().dtype(DType::float64));
  EXPECT_EQ(var(rows, 1, 1, false).to_vector<double>(), (std::vector<double>{0, 0}));
  EXPECT_EQ(var(rows).item<double>(), 0.0);
  EXPECT_EQ(var(rows.to(DType::float32), 1, 1, false).to_vector<float>(),
            (std::vector<float>{0, 0}));
  Tensor x = rows.clone().requires_grad_();
  const Tensor s = hetero::std(x, 1, 1, false);
  (1.0 / (abs(s) + 0.5)).sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), std::vector<double>(10, 0.0));
}

// prod's values, dtypes and its gradient where elements are 0 (the differential test's
// gradient leaves have no zeros); expected values from torch 1.13.
TEST(CnnLayers, ProdDtypesIdentityAndGradientAtZeros) {
  Tensor x = from_vector(std::vector<double>{2, 0, 3, 4, 0, 0, 5, 1, 1, 2, 3, -4}, {3, 4})
                 .requires_grad_();
  const Tensor y = prod(x, 1);
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{0, 0, -24}));
  y.backward(from_vector(std::vector<double>{1, 2, 3}, {3}));
  EXPECT_EQ(x.grad().to_vector<double>(),
            (std::vector<double>{0, 24, 0, 0, 0, 0, 0, 0, -72, -36, -24, 18}));
  Tensor v = from_vector(std::vector<double>{2, 0, 3}, {3}).requires_grad_();
  prod(v).backward();
  EXPECT_EQ(v.grad().to_vector<double>(), (std::vector<double>{0, 6, 0}));
  // Integers and bool give int64, wrapping; an empty reduction gives 1.
  const Tensor i8 = from_vector(std::vector<std::int64_t>{100, 100, 3, 4}, {2, 2}).to(DType::int8);
  EXPECT_EQ(prod(i8, 0).dtype(), DType::int64);
  EXPECT_EQ(prod(i8, 0).to_vector<std::int64_t>(), (std::vector<std::int64_t>{300, 400}));
  EXPECT_EQ(prod(arange(1, 30)).item<std::int64_t>(), -7055958792655077376);
  EXPECT_EQ(prod(zeros({0, 3}), 0).to_vector<float>(), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(prod(zeros({0})).item<float>(), 1.0f);
  EXPECT_EQ(prod(tensor({1.5f, 2.0f}).to(DType::float16)).dtype(), DType::float16);
  EXPECT_THROW(prod(x, 2), IndexError);
}

// prod's gradient where x holds a zero and an inf or NaN, as torch 1.13's exclusive products
// (prod_safe_zeros_backward): the product of the others, so 0 * inf or 0 * NaN is NaN (hetero
// gave 0); the product of every element with two zeros or more gives zeros. Values from torch
// 1.13 (torch_diff seed 1129029 case 19497, seed 1129073 case 11353).
TEST(CnnLayers, ProdGradientAtZerosMeetingInfOrNan) {
  const double nan = NAN, inf = INFINITY;
  const auto grad_along_dim = [](const std::vector<double>& v) {
    Tensor x = from_vector(v, {1, static_cast<std::int64_t>(v.size())}).requires_grad_();
    prod(x, 1).sum().backward();
    return x.grad().to_vector<double>();
  };
  const auto grad_of_all = [](const std::vector<double>& v) {
    Tensor x = from_vector(v).requires_grad_();
    prod(x).backward();
    return x.grad().to_vector<double>();
  };
  const auto expect = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i]))
        EXPECT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
      else
        EXPECT_EQ(got[i], want[i]) << i;
    }
  };
  expect(grad_along_dim({2, 0, nan, 3}), {nan, nan, 0, nan});
  expect(grad_along_dim({2, 0, inf, 3}), {nan, inf, 0, nan});
  expect(grad_along_dim({2, 0, 0, nan}), {nan, nan, nan, 0});
  expect(grad_along_dim({inf, 0, 0, 2}), {0, nan, nan, nan});
  expect(grad_along_dim({0, 2, 3}), {6, 0, 0});
  expect(grad_of_all({2, 0, nan, 3}), {nan, nan, 0, nan});
  expect(grad_of_all({inf, 0, 2}), {0, inf, nan});
  expect(grad_of_all({2, 0, 0, nan}), {0, 0, 0, 0});
  expect(grad_of_all({inf, 0, 0, 2}), {0, 0, 0, 0});
  // A zero anywhere in x makes every line take the product of the others (torch's switch):
  // the inf in a line without zeros gets 2, not inf / inf (seed 1129073 case 11353); without a
  // zero anywhere it is y / x_i, NaN there, as torch.
  Tensor m = from_vector(std::vector<double>{0, 3, inf, 2, nan, 4}, {3, 2}).requires_grad_();
  prod(m, 1).sum().backward();
  expect(m.grad().to_vector<double>(), {3, 0, 2, inf, 4, nan});
  Tensor k = from_vector(std::vector<double>{1, 3, inf, 2}, {2, 2}).requires_grad_();
  prod(k, 1).sum().backward();
  expect(k.grad().to_vector<double>(), {3, 1, nan, inf});
}

// Issue #44 item 8: the product keeps the elements' order, as torch's (1e-30 * 1e-30
// underflowed to 0 before meeting the inf when halves were paired): values from torch 1.13.
TEST(CnnLayers, ProdKeepsTheOrderOfItsElements) {
  const float inf = INFINITY;
  EXPECT_EQ(prod(tensor({1e-30f, inf, 1e-30f, 2.0f})).item<float>(), inf);
  EXPECT_TRUE(std::isnan(prod(tensor({1e-30f, 1e-30f, inf, 2.0f})).item<float>()));
  EXPECT_EQ(prod(tensor({1e-30f, inf, 1e-30f, 2.0f, 3.0f})).item<float>(), inf);
  // Along a dimension, odd lengths and the 2-d case.
  const Tensor m =
      from_vector(std::vector<float>{1e-30f, inf, 1e-30f, 2, 3, 1, 2, 3, 4, 5}, {2, 5});
  const auto rows = prod(m, 1).to_vector<float>();
  EXPECT_EQ(rows, (std::vector<float>{inf, 120.0f}));
  EXPECT_EQ(prod(m.t(), 0).to_vector<float>(), rows);
  // 16-bit products in float64 where the device has it: pairing -4 with 2.5e38 overflowed
  // float32, where torch's left-to-right product stays finite (differential test on cuda:0).
  const std::vector<double> v{-0.0732421875, -0.1875, -4.0, 2.5388254719491893e+38,
                              -0.0238037109375};
  EXPECT_EQ(prod(from_vector(v, {5}).to(DType::bfloat16)).item<double>(), 3.32306998946229e+35);
  EXPECT_EQ(prod(from_vector(v, {5, 1}).to(DType::bfloat16), 0).to_vector<double>(),
            (std::vector<double>{3.32306998946229e+35}));
}
