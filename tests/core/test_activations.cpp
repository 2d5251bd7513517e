// SPDX-License-Identifier: Apache-2.0
// The activations added after GELU's family (<hetero/activations.hpp>: selu, celu, mish,
// logsigmoid, softsign, hardtanh, relu6, hardsigmoid, hardswish, prelu) and their layers:
// values and gradients at the edges as torch 1.13 computes them (float64, printed with
// repr), and torch's refusals. tests/torch_diff draws them at random against torch itself.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <hetero/hetero.hpp>

#include "like_torch.hpp"

namespace {
using namespace hetero;

Tensor f64(const std::vector<double>& v, const Shape& s) { return from_vector(v, s); }

using test::expect_like_torch;

// d(sum(f(x)))/dx at `x`.
std::vector<double> gradient_of(Tensor (*f)(const Tensor&), const Tensor& x) {
  Tensor leaf = x.clone().requires_grad_();
  f(leaf).sum().backward();
  return leaf.grad().to_vector<double>();
}

const double nan = std::nan("");
const double inf = INFINITY;

TEST(Activations, SmoothAsTorch) {
  const Tensor x = f64({-3.0, -0.5, 0.0, 0.7, 2.5, nan, inf, -inf}, {8});
  expect_like_torch(selu(x), {-1.6705687287671118, -0.6917581878028713, 0.0, 0.7354906911488363,
                              2.626752468388701, nan, inf, -1.7580993408473766});
  expect_like_torch(celu(x, 2.0),
                    {-1.5537396797031404, -0.44239843385719024, 0.0, 0.7, 2.5, nan, inf, -2.0});
  expect_like_torch(mish(x), {-0.1456474612756246, -0.22074377465173, 0.0, 0.561148377643852,
                              2.471392304557881, nan, inf, nan});
  expect_like_torch(logsigmoid(x), {-3.048587351573742, -0.9740769841801067, -0.6931471805599453,
                                    -0.4031860488854579, -0.07888973429254963, nan, 0.0, -inf});
  expect_like_torch(softsign(x), {-0.75, -0.3333333333333333, 0.0, 0.4117647058823529,
                                  0.7142857142857143, nan, nan, nan});
  // softsign is division: integers give float32, as torch; bool raises as abs of bool.
  const Tensor ints = from_vector(std::vector<double>{-3, 1, 7}, {3}).to(DType::int8);
  EXPECT_EQ(softsign(ints).dtype(), DType::float32);
  EXPECT_FLOAT_EQ(softsign(ints).to_vector<float>()[2], 0.875f);
  EXPECT_THROW((void)softsign(ints.to(DType::bool_)), DTypeError);
  for (auto* f :
       {+[](const Tensor& t) { return selu(t); }, +[](const Tensor& t) { return mish(t); },
        +[](const Tensor& t) { return logsigmoid(t); }})
    EXPECT_THROW((void)f(ints), NotImplementedError);
  EXPECT_THROW((void)celu(x, 0.0), ValueError);
  EXPECT_THROW((void)nn::CELU(0.0), ValueError);
  // 16-bit input computes in float32 and rounds once.
  EXPECT_EQ(mish(x.to(DType::bfloat16)).dtype(), DType::bfloat16);
  const Tensor xb = x.to(DType::bfloat16);
  EXPECT_EQ(mish(xb).to_vector<double>()[3],
            mish(xb.to(DType::float32)).to(DType::bfloat16).to_vector<double>()[3]);
}

TEST(Activations, PiecewiseAsTorch) {
  const Tensor x = f64({-4.0, -3.0, -1.0, 0.0, 2.0, 3.0, 5.0, 6.0, 7.0, nan}, {10});
  expect_like_torch(hardtanh(x, -2.0, 2.5), {-2.0, -2.0, -1.0, 0.0, 2.0, 2.5, 2.5, 2.5, 2.5, nan});
  expect_like_torch(relu6(x), {0.0, 0.0, 0.0, 0.0, 2.0, 3.0, 5.0, 6.0, 6.0, nan});
  expect_like_torch(hardsigmoid(x), {0.0, 0.0, 0.3333333333333333, 0.5, 0.8333333333333334, 1.0,
                                     1.0, 1.0, 1.0, nan});
  expect_like_torch(hardswish(x), {-0.0, -0.0, -0.3333333333333333, 0.0, 1.6666666666666667, 3.0,
                                   5.0, 6.0, 7.0, nan});
  // Gradients at the bounds: hardtanh's and relu6's are 0 there, NaN passes g (torch's
  // hardtanh_backward's scalar and cuda rule; docs/semantics.md row 63); hardsigmoid's 0 at
  // +-3 and at NaN; hardswish's -0.5 at -3, 1.5 at 3 and g at NaN (torch's scalar and cuda
  // rule; its cpu vector kernel gives 1 and NaN: row 62).
  expect_like_torch(
      f64(gradient_of([](const Tensor& t) { return hardtanh(t, -2.0, 2.5); }, x), {10}),
      {0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0});
  expect_like_torch(f64(gradient_of(&relu6, x), {10}),
                    {0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0});
  const double sixth = 1.0 / 6.0;  // torch's is float32's (docs/semantics.md row 61)
  expect_like_torch(f64(gradient_of(&hardsigmoid, x), {10}),
                    {0.0, 0.0, sixth, sixth, sixth, 0.0, 0.0, 0.0, 0.0, 0.0});
  expect_like_torch(
      f64(gradient_of(&hardswish, x), {10}),
      {0.0, -0.5, 0.16666666666666669, 0.5, 1.1666666666666665, 1.5, 1.0, 1.0, 1.0, 1.0});
  // Integer hardtanh (and relu6): the bounds truncated into the dtype, as torch.
  const Tensor ints = from_vector(std::vector<double>{-3, 1, 5}, {3}).to(DType::int64);
  const Tensor h = hardtanh(ints, -1.7, 2.7);
  EXPECT_EQ(h.dtype(), DType::int64);
  EXPECT_EQ(h.to_vector<double>(), (std::vector<double>{-1, 1, 2}));
  EXPECT_EQ(relu6(ints.to(DType::int8)).to_vector<double>(), (std::vector<double>{0, 1, 5}));
  // torch's refusals: bool input, negative limits for uint8, a bound beyond the dtype.
  EXPECT_THROW((void)hardtanh(ints.to(DType::bool_)), DTypeError);
  EXPECT_THROW((void)hardtanh(ints.abs().to(DType::uint8)), ValueError);
  // ... negative after truncation: -0.9 becomes 0, which uint8 takes (torch: [1, 3, 3]; and
  // [0, 0, 0] for min 0.5, max -0.5; differential seed 1130613 case 2174).
  const Tensor bytes = from_vector(std::vector<double>{1, 4, 255}, {3}).to(DType::uint8);
  EXPECT_EQ(hardtanh(bytes, -0.9, 3.0).to_vector<double>(), (std::vector<double>{1, 3, 3}));
  EXPECT_EQ(hardtanh(bytes, 0.5, -0.5).to_vector<double>(), (std::vector<double>{0, 0, 0}));
  EXPECT_THROW((void)hardtanh(ints.to(DType::int8), -1000.0, 2.0), DTypeError);
  EXPECT_THROW((void)hardswish(ints), NotImplementedError);
  EXPECT_THROW((void)hardsigmoid(ints), NotImplementedError);
  // A min above the max gives the max everywhere (the function); the layer refuses it.
  EXPECT_EQ(hardtanh(x, 0.5, -0.5).to_vector<double>()[0], -0.5);
  EXPECT_THROW((void)nn::Hardtanh(1.0, 1.0), ValueError);
}

TEST(Activations, PReLUAsTorch) {
  const Tensor x = f64({-1.0, 2.0, 3.0, -4.0, -0.5, 0.0, -2.0, 1.0}, {2, 2, 2});
  Tensor xl = x.clone().requires_grad_();
  Tensor w = f64({0.25, -0.5}, {2}).requires_grad_();
  const Tensor y = prelu(xl, w);
  expect_like_torch(y, {-0.25, 2.0, 3.0, 2.0, -0.125, 0.0, 1.0, 1.0});
  y.backward(arange(0, 8).to(DType::float64).reshape({2, 2, 2}));
  expect_like_torch(xl.grad(), {0.0, 1.0, 2.0, -1.5, 1.0, 1.25, -3.0, 7.0});
  expect_like_torch(w.grad(), {-2.0, -24.0});
  // One shared weight, 0-d weights and 0-d or 1-d x (torch 1.13: one channel there).
  expect_like_torch(prelu(x, f64({0.5}, {1})), {-0.5, 2.0, 3.0, -2.0, -0.25, 0.0, -1.0, 1.0});
  expect_like_torch(prelu(f64({-2.0}, {}), f64({3.0}, {})), {-6.0});
  EXPECT_THROW((void)prelu(f64({-1.0, 1.0}, {2}), f64({1.0, 1.0}, {2})), ValueError);
  EXPECT_THROW((void)prelu(f64({-2.0}, {}), f64({1.0, 1.0}, {2})), ValueError);
  EXPECT_THROW((void)prelu(x, f64({1.0, 1.0, 1.0}, {3})), ValueError);
  EXPECT_THROW((void)prelu(x, f64({1.0, 1.0}, {1, 2})), ShapeError);
  EXPECT_THROW((void)prelu(x, f64({1.0, 1.0}, {2}).to(DType::float32)), DTypeError);
  EXPECT_THROW((void)prelu(x.to(DType::int64), f64({1.0}, {1}).to(DType::int64)),
               NotImplementedError);
  // The layer: torch's parameter name and initial value, per-channel slopes.
  nn::PReLU layer(2, 0.25, TensorOptions().dtype(DType::float64));
  const auto params = layer.named_parameters();
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params.at("weight").to_vector<double>(), (std::vector<double>{0.25, 0.25}));
  EXPECT_TRUE(params.at("weight").requires_grad());
  expect_like_torch(layer(x), prelu(x, f64({0.25, 0.25}, {2})).to_vector<double>());
  EXPECT_THROW((void)nn::PReLU(0), ValueError);
}

TEST(Activations, LayersCallTheirFunctions) {
  const Tensor x = f64({-3.5, -0.5, 0.0, 0.7, 2.5, 3.0, 6.5}, {7});
  expect_like_torch(nn::SELU()(x), selu(x).to_vector<double>());
  expect_like_torch(nn::CELU(0.5)(x), celu(x, 0.5).to_vector<double>());
  expect_like_torch(nn::Mish()(x), mish(x).to_vector<double>());
  expect_like_torch(nn::LogSigmoid()(x), logsigmoid(x).to_vector<double>());
  expect_like_torch(nn::Softsign()(x), softsign(x).to_vector<double>());
  expect_like_torch(nn::Hardtanh(-2.0, 2.0)(x), hardtanh(x, -2.0, 2.0).to_vector<double>());
  expect_like_torch(nn::ReLU6()(x), relu6(x).to_vector<double>());
  expect_like_torch(nn::Hardsigmoid()(x), hardsigmoid(x).to_vector<double>());
  expect_like_torch(nn::Hardswish()(x), hardswish(x).to_vector<double>());
  const Tensor m = x.reshape({1, 7});
  expect_like_torch(nn::LogSoftmax(1)(m), log_softmax(m, 1).to_vector<double>());
  EXPECT_THROW((void)nn::LogSoftmax(2)(m), IndexError);
}

}  // namespace
