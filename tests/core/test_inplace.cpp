// SPDX-License-Identifier: Apache-2.0
// The in-place members (add_ / sub_ / mul_ / div_, +=, -=, *=, /=, fill_ / zero_, the unary
// ops, clamp_, pow_, masked_fill_, uniform_ / normal_) against
// torch 1.13 (Note [In-place ops]): values are the out-of-place ops' (checked against torch
// elsewhere), stored in the destination's dtype; the errors and gradients are torch's, whose
// results are quoted beside each case.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <hetero/hetero.hpp>

#include "same_tensor.hpp"

using namespace hetero;
using hetero::test::expect_same;

namespace {

TensorOptions of(DType t) { return TensorOptions().dtype(t); }

}  // namespace

TEST(InPlace, ValuesAreTheOpsOwnStoredInTheDestinationsElements) {
  manual_seed(5);
  for (DType t : {DType::float32, DType::float64, DType::bfloat16, DType::float16}) {
    const Tensor a = randn({5, 7}).to(t), b = randn({7}).to(t);
    Tensor buffer = zeros({40}, of(t));
    Tensor x = buffer.narrow(0, 3, 35).view({5, 7});  // a view: only its elements change
    x.copy_(a);
    Tensor& r = x.add_(b);
    EXPECT_TRUE(&r == &x);
    expect_same(x, a + b);
    x.copy_(a);
    x.sub_(b);
    expect_same(x, a - b);
    x.copy_(a);
    x.mul_(b);
    expect_same(x, a * b);
    x.copy_(a);
    x.div_(b);
    expect_same(x, a / b);
    x.copy_(a);
    x += b;
    x *= 3;
    x -= 0.5;
    x /= b;
    expect_same(x, ((a + b) * 3 - 0.5) / b);
    const auto all = buffer.to(DType::float64).to_vector<double>();
    EXPECT_EQ(all[0] + all[1] + all[2] + all[38] + all[39], 0.0) << t;
    // Every element is read before it is written: x.add_(x) doubles.
    x.copy_(a);
    x.add_(x);
    expect_same(x, a + a);
  }
  // A transposed (non-contiguous) destination, the other operand contiguous.
  const Tensor m = randn({4, 3});
  Tensor mt = m.clone().t();
  const Tensor other = randn({3, 4});
  mt.mul_(other);
  expect_same(mt, m.t() * other);
}

TEST(InPlace, NumbersWrapAndResultsCastAsTorch) {
  const auto i64 = [](std::vector<std::int64_t> v) { return from_vector(v, {3}); };
  Tensor l = i64({1, 2, 3});
  l.add_(2);  // an integral number keeps int64
  expect_same(l, i64({3, 4, 5}));
  l *= 2;
  expect_same(l, i64({6, 8, 10}));
  // 2^62 + 1 is exact: the number is not a double.
  Tensor big = zeros({1}, of(DType::int64));
  big.add_(std::int64_t{4611686018427387905});
  EXPECT_EQ(big.item<std::int64_t>(), 4611686018427387905);
  // torch.zeros(2, dtype=torch.uint8).add_(300) == [44, 44]
  Tensor u = zeros({2}, of(DType::uint8));
  u.add_(300);
  EXPECT_EQ(u.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{44, 44}));
  // "result type Float can't be cast to the desired output type Long"
  EXPECT_THROW(l.add_(1.5), DTypeError);
  EXPECT_THROW(l.div_(2), DTypeError);  // true division
  EXPECT_THROW(l.add_(ones({3})), DTypeError);
  expect_same(l, i64({6, 8, 10}));  // nothing written
  // "result type Long can't be cast to the desired output type Bool"
  Tensor flags = zeros({2}, of(DType::bool_));
  EXPECT_THROW(flags.add_(1), DTypeError);
  flags.add_(ones({2}, of(DType::bool_)));  // logical or
  EXPECT_EQ(flags.to_vector<bool>(), (std::vector<bool>{true, true}));
  // A float32 tensor takes an int64 operand; float16 takes a float32 one, rounding the
  // float32 result once: torch.zeros(2, dtype=torch.half).add_(torch.full((2,), 1.0001)) is 1.
  Tensor f = zeros({3});
  f.add_(i64({1, 2, 3}));
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  Tensor h = zeros({2}, of(DType::float16));
  h.add_(full({2}, 1.0001));
  EXPECT_EQ(h.dtype(), DType::float16);
  EXPECT_EQ(h.to(DType::float32).to_vector<float>(), (std::vector<float>{1, 1}));
}

TEST(InPlace, ShapesAndOverlapsAreRefusedAsTorch) {
  // "output with shape [3] doesn't match the broadcast shape [2, 3]", also for no elements.
  Tensor v = zeros({3});
  EXPECT_THROW(v.add_(ones({2, 3})), ShapeError);
  Tensor none = zeros({0});
  EXPECT_THROW(none.add_(ones({2, 0})), ShapeError);
  EXPECT_EQ(none.shape(), (Shape{0}));
  EXPECT_THROW(v.add_(ones({4})), ShapeError);
  Tensor m = zeros({2, 3});
  m.add_(ones({3}));  // broadcasts into the destination's shape
  EXPECT_TRUE(equal(m, ones({2, 3})));
  // "more than one element of the written-to tensor refers to a single memory location"
  Tensor expanded = zeros({1}).expand({3});
  EXPECT_THROW(expanded.add_(1), ValueError);
  EXPECT_THROW(expanded.fill_(1), ValueError);
  EXPECT_THROW(expanded.zero_(), ValueError);
  // "some elements of the input tensor and the written-to tensor refer to a single memory
  // location": a shifted slice, a transpose of itself.
  Tensor x = arange(4.0);
  Tensor tail = x.narrow(0, 1, 3);
  EXPECT_THROW(tail.add_(x.narrow(0, 0, 3)), ValueError);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 1, 2, 3}));
  Tensor sq = arange(4.0).view({2, 2});
  EXPECT_THROW(sq.add_(sq.t()), ValueError);
  Tensor undefined;
  EXPECT_THROW(undefined.add_(1), Error);
  EXPECT_THROW(undefined.fill_(1), Error);
  EXPECT_THROW(v.mul_(Tensor()), Error);
}

TEST(InPlace, AutogradFollowsTorch) {
  // "a leaf Variable that requires grad is being used in an in-place operation."
  Tensor leaf = ones({3}).requires_grad_();
  EXPECT_THROW(leaf.add_(1), Error);
  EXPECT_THROW(leaf.zero_(), Error);
  EXPECT_THROW(leaf[0].mul_(2), Error);  // a view of one
  {
    NoGradGuard no_grad;  // the optimiser's form
    leaf.sub_(0.5);
  }
  EXPECT_TRUE(leaf.is_leaf());
  EXPECT_EQ(leaf.to_vector<float>(), (std::vector<float>{0.5f, 0.5f, 0.5f}));

  // y = x * 2; y.add_(x): x.grad == [3, 3, 3]
  Tensor x = ones({3}).requires_grad_();
  Tensor y = x * 2;
  y.add_(x);
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(y.grad_fn_name(), "CopyBackwards");  // torch: AddBackward0 (Note [In-place ops])
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{3, 3, 3}));

  // y = x * 2; y.mul_(z): x.grad == 2 z, z.grad == 2 x (the old y).
  x = from_vector(std::vector<float>{1, 2, 3}).requires_grad_();
  Tensor z = from_vector(std::vector<float>{4, 5, 6}).requires_grad_();
  y = x * 2;
  y.mul_(z);
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{8, 10, 12}));
  EXPECT_EQ(z.grad().to_vector<float>(), (std::vector<float>{2, 4, 6}));

  // y = x * 2; y.mul_(y): torch raises at backward (its MulBackward0 saved y, which the
  // write changed); hetero saves a copy of the operand that shares y's memory, so the
  // gradient is exact: d(4 x^2)/dx = 8 x (docs/semantics.md row 54).
  x = from_vector(std::vector<float>{1, 2, 3}).requires_grad_();
  y = x * 2;
  y.mul_(y);
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{8, 16, 24}));
  x = from_vector(std::vector<float>{1, 2, 4}).requires_grad_();
  y = x * 2;
  y.div_(x);  // 2 x / x: gradient 0 where the quotient does not depend on x
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 0, 0}));

  // y.zero_() and y.fill_(5): no gradient to x.
  for (int which = 0; which < 2; ++which) {
    x = ones({3}).requires_grad_();
    y = x * 2;
    which == 0 ? y.zero_() : y.fill_(5);
    EXPECT_TRUE(y.requires_grad());
    y.sum().backward();
    EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 0, 0}));
  }

  // A tensor without grad that takes one with grad: y = zeros(3); y.add_(x) requires grad.
  x = ones({3}).requires_grad_();
  y = zeros({3});
  y.add_(x);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{1, 1, 1}));

  // Into a view: y = x * 1; y[0].mul_(3): x.grad == [[3, 3, 3], [1, 1, 1]], CopySlices.
  x = ones({2, 3}).requires_grad_();
  y = x * 1;
  y[0].mul_(3);
  EXPECT_EQ(y.grad_fn_name(), "CopySlices");
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{3, 3, 3, 1, 1, 1}));

  // A backward that saved the old values raises: exp saves its result.
  x = ones({3}).requires_grad_();
  y = x.exp();
  y.add_(1);
  EXPECT_THROW(y.sum().backward(), Error);
  // ... also when the write was under NoGradGuard (the version still moves).
  x = ones({3}).requires_grad_();
  y = x.exp();
  {
    NoGradGuard no_grad;
    y.fill_(2);
  }
  EXPECT_THROW(y.sum().backward(), Error);
}

TEST(InPlace, FillChecksItsValueAsTorch) {
  const auto filled = [](DType t, Number v) {
    Tensor x = zeros({2}, of(t));
    x.fill_(v);
    return x;
  };
  // "value cannot be converted to type int8_t without overflow"
  EXPECT_THROW(filled(DType::int8, 300), DTypeError);
  EXPECT_THROW(filled(DType::int8, 127.5), DTypeError);
  EXPECT_THROW(filled(DType::uint8, -1.0), DTypeError);
  EXPECT_THROW(filled(DType::uint8, 255.5), DTypeError);
  EXPECT_THROW(filled(DType::float16, 1e5), DTypeError);
  EXPECT_THROW(filled(DType::bfloat16, 1e39), DTypeError);
  EXPECT_THROW(filled(DType::float32, 1e39), DTypeError);
  EXPECT_THROW(filled(DType::int32, std::nan("")), DTypeError);
  EXPECT_THROW(filled(DType::int32, 3e9), DTypeError);
  EXPECT_THROW(filled(DType::int32, std::int64_t{1} << 40), DTypeError);
  EXPECT_THROW(filled(DType::float16, 70000), DTypeError);
  // uint8 takes an integral value down to -255 and wraps it: -1 -> 255, -129 -> 127.
  EXPECT_EQ(filled(DType::uint8, -1).to_vector<std::uint8_t>(),
            (std::vector<std::uint8_t>{255, 255}));
  EXPECT_EQ(filled(DType::uint8, -129).to_vector<std::uint8_t>(),
            (std::vector<std::uint8_t>{127, 127}));
  EXPECT_THROW(filled(DType::uint8, -256), DTypeError);
  EXPECT_EQ(filled(DType::int32, 2.7).to_vector<std::int32_t>(), (std::vector<std::int32_t>{2, 2}));
  EXPECT_EQ(filled(DType::int32, -2.7).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{-2, -2}));
  EXPECT_EQ(filled(DType::int64, std::int64_t{4611686018427387905}).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{4611686018427387905, 4611686018427387905}));
  EXPECT_TRUE(
      std::isinf(filled(DType::float16, INFINITY).to(DType::float32).to_vector<float>()[1]));
  for (Number v : {Number(2), Number(0.5), Number(std::nan(""))})
    EXPECT_EQ(filled(DType::bool_, v).to_vector<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(filled(DType::bool_, 0).to_vector<bool>(), (std::vector<bool>{false, false}));
  // Only a view's elements; zero_ is fill_(0).
  Tensor m = ones({3, 4});
  m.narrow(1, 1, 2).fill_(7);
  m[2].zero_();
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{1, 7, 7, 1, 1, 7, 7, 1, 0, 0, 0, 0}));
  Tensor empty_tensor = zeros({0, 3});
  empty_tensor.fill_(1);  // nothing to write
  EXPECT_EQ(empty_tensor.numel(), 0);
}

// D2L 3.2 (linear regression from scratch), written as its PyTorch code is: the update
// `param -= lr * param.grad / batch_size` under no_grad and `param.grad.zero_()`. It learns
// w = [2, -3.4], b = 4.2 from 1000 noisy samples in 3 epochs (D2L: errors about 1e-3).
TEST(InPlace, D2LLinearRegressionFromScratchTrains) {
  manual_seed(42);
  const Tensor true_w = tensor({2.0f, -3.4f}).view({2, 1});
  const Tensor features = randn({1000, 2});
  const Tensor labels = matmul(features, true_w) + 4.2 + randn({1000, 1}) * 0.01;
  Tensor w = (randn({2, 1}) * 0.01).requires_grad_();
  Tensor b = zeros({1}).requires_grad_();
  const double lr = 0.03;
  const std::int64_t batch = 10;
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (std::int64_t i = 0; i < 1000; i += batch) {
      const Tensor X = features.narrow(0, i, batch), y = labels.narrow(0, i, batch);
      const Tensor d = matmul(X, w) + b - y;
      (d * d / 2.0).sum().backward();
      {
        NoGradGuard no_grad;
        for (Tensor* p : {&w, &b}) {
          *p -= p->grad() * (lr / static_cast<double>(batch));
          p->grad().zero_();
        }
      }
    }
  }
  EXPECT_TRUE(w.is_leaf() && b.is_leaf());
  const auto got_w = w.detach().to_vector<float>();
  EXPECT_NEAR(got_w[0], 2.0f, 2e-3);
  EXPECT_NEAR(got_w[1], -3.4f, 2e-3);
  EXPECT_NEAR(b.detach().item<float>(), 4.2f, 2e-3);
}

TEST(InPlace, AlphaScalesTheOtherOperand) {
  manual_seed(9);
  const Tensor a = randn({4, 5}), b = randn({5});
  Tensor x = a.clone();
  x.add_(b, 2.5);
  expect_same(x, a + b * 2.5);
  x = a.clone();
  x.sub_(b, -0.25);
  expect_same(x, a - b * -0.25);
  x = a.clone();
  x.add_(b, 1);  // alpha 1 is add_(b)
  expect_same(x, a + b);
  // float16: the product in float32, the sum rounded once into float16.
  const Tensor h = randn({64}).to(DType::float16), k = randn({64}).to(DType::float16);
  Tensor hx = h.clone();
  hx.add_(k, 0.1);
  expect_same(hx, (h.to(DType::float32) + k.to(DType::float32) * 0.1).to(DType::float16));
  // Integers: an integral alpha wraps as the arithmetic does; a floating one is refused
  // ("For integral input tensors, argument alpha must not be a floating point number.").
  Tensor l = from_vector<std::int64_t>({1, 2, 3}, {3});
  l.add_(from_vector<std::int64_t>({10, 20, 30}, {3}), 3);
  EXPECT_EQ(l.to_vector<std::int64_t>(), (std::vector<std::int64_t>{31, 62, 93}));
  EXPECT_THROW(l.add_(l.clone(), 1.5), DTypeError);
  Tensor flags = zeros({2}, of(DType::bool_));
  EXPECT_THROW(flags.add_(flags.clone(), 2), DTypeError);
  // torch: y = x * 1; y.add_(z, alpha=-2): z.grad == -2, x.grad == 1.
  Tensor w = ones({3}).requires_grad_(), z = ones({3}).requires_grad_();
  Tensor y = w * 1;
  y.add_(z, -2);
  y.sum().backward();
  EXPECT_EQ(z.grad().to_vector<float>(), (std::vector<float>{-2, -2, -2}));
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{1, 1, 1}));
}

TEST(InPlace, UnaryOpsAndClampStoreTheFunctionsValues) {
  manual_seed(11);
  const Tensor a = randn({3, 4});
  const auto check = [&](const char* name, Tensor& (Tensor::*member)(),
                         Tensor (*f)(const Tensor&)) {
    SCOPED_TRACE(name);
    const Tensor in = abs(a) + 0.25;  // in every function's domain (no NaN to compare)
    Tensor x = in.clone();
    Tensor view = x.t();  // a transposed destination
    EXPECT_TRUE(&(view.*member)() == &view);
    // The function of the same strided view (a strided pass may round otherwise than the
    // vector kernel of a dense one; both are within the function's ulp bound).
    expect_same(view, f(in.t()));
  };
  check("neg_", &Tensor::neg_, &neg);
  check("abs_", &Tensor::abs_, &abs);
  check("exp_", &Tensor::exp_, &exp);
  check("log_", &Tensor::log_, &log);
  check("sqrt_", &Tensor::sqrt_, &sqrt);
  check("sigmoid_", &Tensor::sigmoid_, &sigmoid);
  check("tanh_", &Tensor::tanh_, &tanh);
  check("relu_", &Tensor::relu_, &relu);
  Tensor c = a.clone();
  c.clamp_(-0.5, 0.5);
  expect_same(c, clamp(a, -0.5, 0.5));
  c = a.clone();
  c.clamp_(std::nullopt, 0.0);
  expect_same(c, clamp(a, std::nullopt, 0.0));
  // Integers keep their dtype where the function does; otherwise torch's cast error.
  Tensor u = from_vector<std::uint8_t>({1, 0, 200}, {3});
  u.neg_();
  EXPECT_EQ(u.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{255, 0, 56}));
  Tensor l = from_vector<std::int64_t>({-3, 5, 9}, {3});
  l.clamp_(0, 6);
  EXPECT_EQ(l.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 5, 6}));
  EXPECT_THROW(l.exp_(), DTypeError);  // "result type Float can't be cast to ... Long"
  EXPECT_THROW(l.clamp_(2.5, 3), DTypeError);
  EXPECT_THROW(l.clamp_(std::nullopt, std::nullopt), ValueError);
  EXPECT_EQ(l.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 5, 6}));
  Tensor flags = ones({2}, of(DType::bool_));
  EXPECT_THROW(flags.neg_(), DTypeError);
  Tensor expanded = zeros({1}).expand({3});
  EXPECT_THROW(expanded.exp_(), ValueError);
  Tensor undefined;
  EXPECT_THROW(undefined.relu_(), Error);
}

TEST(InPlace, UnaryOpsRecordTorchsGradients) {
  // torch: x = [1, 2, 3] (requires grad); y = x * 2; y.log_(): x.grad == 1 / x (log saves
  // its input, which the write changes: hetero takes it from a copy, torch saves self's
  // original the same way).
  Tensor x = from_vector<double>({1, 2, 3}, {3}).requires_grad_();
  Tensor y = x * 2.0;
  y.log_();
  y.sum().backward();
  const auto g = x.grad().to_vector<double>();
  EXPECT_DOUBLE_EQ(g[0], 1.0);
  EXPECT_DOUBLE_EQ(g[1], 0.5);
  EXPECT_DOUBLE_EQ(g[2], 1.0 / 3);
  // y = x - 2; y.relu_(); y.exp_(): gradient exp(relu(x - 2)) where x > 2, else 0.
  x = from_vector<double>({1, 2, 3}, {3}).requires_grad_();
  y = x - 2.0;
  y.relu_().exp_();
  y.sum().backward();
  const auto ge = x.grad().to_vector<double>();
  EXPECT_EQ(ge[0], 0.0);
  EXPECT_EQ(ge[1], 0.0);
  EXPECT_DOUBLE_EQ(ge[2], std::exp(1.0));
  // Into a view: y[1].clamp_(0, 1) on y = x * 3 with x = [[0.1, 0.5], [0.1, 0.5]]:
  // gradient 3 everywhere but the clamped element 1.5, torch: [[3, 3], [3, 0]].
  x = from_vector<double>({0.1, 0.5, 0.1, 0.5}, {2, 2}).requires_grad_();
  y = x * 3.0;
  y[1].clamp_(0, 1);
  EXPECT_EQ(y.grad_fn_name(), "CopySlices");
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{3, 3, 3, 0}));
  // A leaf that requires grad: "a leaf Variable that requires grad is being used in an
  // in-place operation."; under NoGradGuard it is written.
  Tensor leaf = ones({2}).requires_grad_();
  EXPECT_THROW(leaf.exp_(), Error);
  EXPECT_THROW(leaf.clamp_(0, 0.5), Error);
  {
    NoGradGuard no_grad;
    leaf.clamp_(0, 0.5);  // the WGAN weight clip
  }
  EXPECT_EQ(leaf.to_vector<float>(), (std::vector<float>{0.5f, 0.5f}));
}

TEST(InPlace, PowAndMaskedFillAsTorch) {
  manual_seed(13);
  const Tensor a = abs(randn({2, 3})) + 0.5;
  Tensor x = a.clone();
  x.pow_(2.5);
  expect_same(x, pow(a, 2.5));
  x = a.clone();
  const Tensor e = from_vector<float>({2, 0.5f, 3}, {3});  // broadcast over the rows
  x.pow_(e);
  expect_same(x, pow(a, e));
  // Integers: an integral exponent stays integral (uint8 wraps: 3^5 = 243, 2^5 = 32), a
  // floating one cannot be stored (torch: "Found dtype Long but expected Float"), a negative
  // integral one is pow's error ("Integers to negative integer powers are not allowed.").
  Tensor l = from_vector<std::int64_t>({2, 3}, {2});
  l.pow_(2);
  EXPECT_EQ(l.to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 9}));
  Tensor u = from_vector<std::uint8_t>({2, 3}, {2});
  u.pow_(5);
  EXPECT_EQ(u.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{32, 243}));
  EXPECT_THROW(l.pow_(2.5), DTypeError);
  EXPECT_THROW(l.pow_(-1), Error);
  EXPECT_EQ(l.to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 9}));
  // The exponent or the mask may not enlarge the destination: "output with shape [3]
  // doesn't match the broadcast shape [2, 3]".
  Tensor row = ones({3});
  EXPECT_THROW(row.pow_(ones({2, 3})), ShapeError);
  EXPECT_THROW(row.masked_fill_(ones({2, 3}, of(DType::bool_)), 1.0), ShapeError);
  EXPECT_EQ(row.to_vector<float>(), (std::vector<float>{1, 1, 1}));

  const Tensor mask = from_vector<float>({1, 0, 1}, {3}).to(DType::bool_);
  x = a.clone();
  x.masked_fill_(mask, -1.0);
  expect_same(x, masked_fill(a, mask, -1.0));
  Tensor i32 = zeros({3}, of(DType::int32));
  i32.masked_fill_(mask, 2.7);  // torch: [2, 0, 2]
  EXPECT_EQ(i32.to_vector<std::int32_t>(), (std::vector<std::int32_t>{2, 0, 2}));
  // torch: a 1-d value "masked_fill_ only supports a 0-dimensional value tensor".
  EXPECT_THROW(x.masked_fill_(mask, ones({3})), Error);
}

TEST(InPlace, PowAndMaskedFillRecordTorchsGradients) {
  // torch: x = [1, 2, 3], e = [2, 0.5, 1] (both require grad); y = x * 1; y.pow_(e):
  // x.grad == [2, 0.3536, 1], e.grad == [0, 0.9803, 3.2958] (x^e ln x).
  Tensor x = from_vector<double>({1, 2, 3}, {3}).requires_grad_();
  Tensor e = from_vector<double>({2, 0.5, 1}, {3}).requires_grad_();
  Tensor y = x * 1.0;
  y.pow_(e);
  y.sum().backward();
  const auto gx = x.grad().to_vector<double>(), ge = e.grad().to_vector<double>();
  EXPECT_DOUBLE_EQ(gx[0], 2.0);
  EXPECT_DOUBLE_EQ(gx[1], 0.5 / std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(gx[2], 1.0);
  EXPECT_DOUBLE_EQ(ge[0], 0.0);
  EXPECT_DOUBLE_EQ(ge[1], std::sqrt(2.0) * std::log(2.0));
  EXPECT_DOUBLE_EQ(ge[2], 3 * std::log(3.0));
  // torch: x = [[1, 2, 3], [4, 5, 6]], v = 7 (both require grad); y = x * 2;
  // y.masked_fill_([True, False, True], v): y == [[7, 4, 7], [7, 10, 7]],
  // x.grad == [[0, 2, 0], [0, 2, 0]], v.grad == 4.
  x = from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3}).requires_grad_();
  Tensor v = full({}, 7.0, of(DType::float64)).requires_grad_();
  y = x * 2.0;
  y.masked_fill_(from_vector<float>({1, 0, 1}, {3}).to(DType::bool_), v);
  EXPECT_EQ(y.detach().to_vector<double>(), (std::vector<double>{7, 4, 7, 7, 10, 7}));
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{0, 2, 0, 0, 2, 0}));
  EXPECT_EQ(v.grad().item<double>(), 4.0);
}

TEST(InPlace, UniformAndNormalDrawFromTheGivenGenerator) {
  // uniform_ draws rand()'s values scaled to [from, to): the same generator state gives the
  // same numbers as rand() from it.
  Generator g(5), h(5);
  Tensor x = empty({1000});
  EXPECT_TRUE(&x.uniform_(-2, 3, &g) == &x);
  expect_same(x, rand({1000}, h) * 5.0 + -2.0);
  const auto xs = x.to_vector<float>();
  for (float v : xs) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LT(v, 3.0f);
  }
  Tensor n = empty({20000}, of(DType::float64));
  n.normal_(0.5, 2.0, &g);  // mean 0.5 and std 2 within 5 standard errors
  EXPECT_NEAR(n.mean().item<double>(), 0.5, 5 * 2.0 / std::sqrt(20000.0));
  EXPECT_NEAR(hetero::std(n).item<double>(), 2.0, 5 * 2.0 / std::sqrt(2 * 20000.0));
  // bfloat16: drawn in float32, then cast.
  Generator g2(8), h2(8);
  Tensor b = empty({64}, of(DType::bfloat16));
  b.normal_(0, 1, &g2);
  expect_same(b, randn({64}, h2).to(DType::bfloat16));
  // torch's errors; nothing written before them.
  Tensor l = zeros({3}, of(DType::int64));
  EXPECT_THROW(l.normal_(), DTypeError);  // "normal_kernel_cpu" not implemented for 'Long'
  EXPECT_THROW(l.uniform_(), DTypeError);
  Tensor f = zeros({3});
  EXPECT_THROW(f.normal_(0, -1), ValueError);
  EXPECT_THROW(f.uniform_(1, 0), ValueError);
  EXPECT_THROW(f.uniform_(0, std::numeric_limits<double>::infinity()), ValueError);
  Tensor expanded = zeros({1}).expand({3});
  EXPECT_THROW(expanded.normal_(), ValueError);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{0, 0, 0}));
  // A refused call draws nothing: the generator is where it was.
  Generator g3(7), h3(7);
  Tensor leaf = zeros({4}).requires_grad_();
  EXPECT_THROW(expanded.normal_(0, 1, &g3), ValueError);
  EXPECT_THROW(leaf.uniform_(0, 1, &g3), Error);
  Tensor drawn = empty({4});
  drawn.normal_(0, 1, &g3);
  expect_same(drawn, randn({4}, h3));
}

TEST(InPlace, NormalInitialisesAParameterAsD2L) {
  // D2L 3.3: net[0].weight.data.normal_(0, 0.01); net[0].bias.data.fill_(0). `.data` is
  // detach(): a handle on the parameter's storage without its autograd state.
  manual_seed(3);
  nn::Linear linear(2, 1);
  linear.weight().detach().normal_(0, 0.01);
  linear.bias().detach().fill_(0);
  EXPECT_LT(abs(linear.weight()).max().item<float>(), 0.05f);  // 5 sigma
  EXPECT_EQ(linear.bias().item<float>(), 0.0f);
  EXPECT_TRUE(linear.weight().requires_grad());
  // The parameter itself is a leaf that requires grad: torch refuses the write with grad
  // mode on ("a leaf Variable that requires grad is being used in an in-place operation").
  EXPECT_THROW(linear.weight().normal_(), Error);
  {
    NoGradGuard no_grad;
    linear.weight().uniform_(-1, 1);
  }
  // torch: x = [1, 2, 3] (requires grad); y = x * 2; y.normal_(): x.grad == 0 (overwritten).
  Tensor x = from_vector<float>({1, 2, 3}, {3}).requires_grad_();
  Tensor y = x * 2.0f;
  y.normal_();
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 0, 0}));
}
