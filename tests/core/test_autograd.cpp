// SPDX-License-Identifier: Apache-2.0
// Autograd: every operation with a backward is checked against central finite
// differences in float64 (gradcheck below), plus the engine's rules (accumulation,
// no_grad, retain_graph, leaves, devices) and the optimiser.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include <hetero/hetero.hpp>

#include "like_torch.hpp"

namespace {
using namespace hetero;
using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

Tensor f64(const std::vector<double>& v, const Shape& s) { return from_vector(v, s); }

// Deterministic values in [-1.5, 1.5], away from 0 by at least 0.1 when `away_from_zero`.
Tensor values(const Shape& s, int salt, bool positive = false) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    double x = std::sin(1.7 * static_cast<double>(i) + 0.37 * salt) * 1.4;
    if (std::fabs(x) < 0.1) x = x < 0 ? -0.1 : 0.1;
    v[i] = positive ? std::fabs(x) + 0.2 : x;
  }
  return f64(v, s);
}

// Checks d(sum(f(x) * v))/dx from backward() against central differences, for every
// element of every input. v is a fixed cotangent, so non-scalar outputs are covered.
void gradcheck(const Fn& f, std::vector<Tensor> inputs, double tol = 1e-6) {
  for (auto& x : inputs) x.requires_grad_();
  const Tensor out = f(inputs);
  ASSERT_TRUE(out.requires_grad()) << "output has no grad_fn";
  const Tensor v = values(out.shape(), 99).to(out.dtype());
  (out * v).sum().backward();
  NoGradGuard no_grad;
  const double eps = 1e-6;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_TRUE(inputs[i].grad().defined()) << "input " << i << " got no gradient";
    ASSERT_EQ(inputs[i].grad().shape(), inputs[i].shape());
    const auto analytic = inputs[i].grad().to_vector<double>();
    const auto base = inputs[i].to_vector<double>();
    for (std::size_t j = 0; j < base.size(); ++j) {
      auto probe = [&](double delta) {
        std::vector<Tensor> moved = inputs;
        auto p = base;
        p[j] += delta;
        moved[i] = from_vector(p, inputs[i].shape()).to(inputs[i].device());
        return (f(moved) * v).sum().item<double>();
      };
      const double numeric = (probe(eps) - probe(-eps)) / (2 * eps);
      EXPECT_NEAR(analytic[j], numeric, tol * (1 + std::fabs(numeric)))
          << "input " << i << " element " << j;
    }
  }
}

TEST(Gradcheck, BinaryOpsWithBroadcasting) {
  gradcheck([](auto& x) { return x[0] + x[1]; }, {values({2, 3}, 1), values({3}, 2)});
  gradcheck([](auto& x) { return x[0] - x[1]; }, {values({2, 1}, 1), values({1, 3}, 2)});
  gradcheck([](auto& x) { return x[0] * x[1]; }, {values({2, 3}, 1), values({2, 1}, 2)});
  gradcheck([](auto& x) { return x[0] / x[1]; }, {values({2, 3}, 1), values({3}, 2, true)});
  gradcheck([](auto& x) { return 2.5 * x[0] - 1.0 + x[0] / 4.0; }, {values({4}, 3)});
  gradcheck([](auto& x) { return 3.0 / x[0]; }, {values({4}, 3, true)});
}

TEST(Gradcheck, UnaryOps) {
  gradcheck([](auto& x) { return -x[0]; }, {values({5}, 1)});
  gradcheck([](auto& x) { return exp(x[0]); }, {values({2, 2}, 1)});
  gradcheck([](auto& x) { return log(x[0]); }, {values({5}, 2, true)});
  gradcheck([](auto& x) { return sqrt(x[0]); }, {values({5}, 3, true)});
  gradcheck([](auto& x) { return abs(x[0]); }, {values({6}, 4)});
  gradcheck([](auto& x) { return relu(x[0]); }, {values({6}, 5)});
  gradcheck([](auto& x) { return sigmoid(x[0]); }, {values({6}, 6)});
  gradcheck([](auto& x) { return tanh(x[0]); }, {values({6}, 7)});
}

TEST(Gradcheck, Reductions) {
  gradcheck([](auto& x) { return x[0].sum(); }, {values({2, 3}, 1)});
  gradcheck([](auto& x) { return x[0].sum(1); }, {values({2, 3}, 2)});
  gradcheck([](auto& x) { return x[0].sum(0, true); }, {values({2, 3}, 3)});
  gradcheck([](auto& x) { return x[0].mean(); }, {values({2, 3}, 4)});
  gradcheck([](auto& x) { return x[0].mean(-1, true); }, {values({2, 3, 2}, 5)});
  gradcheck([](auto& x) { return x[0].norm(); }, {values({3, 2}, 6)});
}

TEST(Gradcheck, Matmul) {
  gradcheck([](auto& x) { return matmul(x[0], x[1]); }, {values({2, 3}, 1), values({3, 4}, 2)});
  gradcheck([](auto& x) { return matmul(x[0], x[1]); }, {values({3}, 1), values({3, 2}, 2)});
  gradcheck([](auto& x) { return matmul(x[0], x[1]); }, {values({2, 3}, 1), values({3}, 2)});
  gradcheck([](auto& x) { return matmul(x[0], x[1]); }, {values({3}, 1), values({3}, 2)});
  gradcheck([](auto& x) { return matmul(x[0], x[1]); }, {values({2, 2, 3}, 1), values({3, 2}, 2)});
  gradcheck([](auto& x) { return matmul(x[0], x[1].t()); }, {values({2, 3}, 1), values({4, 3}, 2)});
}

TEST(Gradcheck, SoftmaxAndLogSoftmax) {
  gradcheck([](auto& x) { return softmax(x[0], 1); }, {values({2, 4}, 1)});
  gradcheck([](auto& x) { return log_softmax(x[0], 1); }, {values({3, 4}, 2)});
  gradcheck([](auto& x) { return log_softmax(x[0], 0); }, {values({3, 2}, 3)});
}

TEST(Gradcheck, ViewsCastsAndCopies) {
  gradcheck([](auto& x) { return x[0].transpose(0, 1) * x[1]; },
            {values({2, 3}, 1), values({3, 2}, 2)});
  gradcheck([](auto& x) { return x[0].view({3, 2}); }, {values({2, 3}, 1)});
  gradcheck([](auto& x) { return x[0].t().reshape({6}); }, {values({2, 3}, 1)});
  gradcheck([](auto& x) { return x[0].unsqueeze(1).squeeze(1); }, {values({4}, 1)});
  gradcheck([](auto& x) { return x[0][1] * 2.0; }, {values({3, 2}, 1)});
  gradcheck([](auto& x) { return x[0].narrow(1, 1, 2) * 2.0; }, {values({3, 4}, 1)});
  gradcheck([](auto& x) { return x[0].t().contiguous() + x[0].clone().t(); }, {values({2, 3}, 1)});
  const Device other = device_count("cpu") > 1 ? Device("cpu:1") : Device::cpu();
  gradcheck([other](auto& x) { return (x[0].to(other) * 3.0).copy_to(Device::cpu()); },
            {values({4}, 1)});
}

TEST(Gradcheck, LayersAndLosses) {
  gradcheck([](auto& x) { return nn::Flatten()(x[0]); }, {values({2, 2, 2}, 1)});
  gradcheck([](auto& x) { return nn::Sigmoid()(x[0]); }, {values({3}, 1)});
  gradcheck([](auto& x) { return nn::MSELoss()(x[0], x[1]); },
            {values({2, 3}, 1), values({2, 3}, 2)});
  const Tensor target = tensor({2, 0, 1});
  gradcheck([&](auto& x) { return nn::CrossEntropyLoss()(x[0], target); }, {values({3, 4}, 1)});
  gradcheck(
      [&](auto& x) {
        return nn::CrossEntropyLoss(f64({1.0, 2.0, 0.5, 3.0}, {4}))(x[0], target);
      },
      {values({3, 4}, 2)});
  // Linear through its parameters: x W^T + b.
  gradcheck([](auto& x) { return matmul(x[0], x[1].t()) + x[2]; },
            {values({2, 3}, 1), values({4, 3}, 2), values({4}, 3)});
  // Dropout with a fixed mask (same seed each evaluation).
  gradcheck(
      [](auto& x) {
        manual_seed(5);
        nn::Dropout d(0.4);
        return d(x[0]);
      },
      {values({8}, 1)});
}

// Finite differences cannot see through float32 rounding; the cast's gradient is the
// incoming one converted back to the input's dtype.
TEST(Autograd, CastGradientTakesTheInputDtype) {
  Tensor x = values({4}, 1).requires_grad_();
  (x.to(DType::float32) * 3.0).sum().backward();
  EXPECT_EQ(x.grad().dtype(), DType::float64);
  EXPECT_EQ(x.grad().to_vector<double>(), std::vector<double>(4, 3.0));
  Tensor h = ones({3}, DType::float16).requires_grad_();
  (h * h).sum().backward();
  EXPECT_EQ(h.grad().dtype(), DType::float16);
  EXPECT_EQ(h.grad().to_vector<float>(), std::vector<float>(3, 2.0f));
}

// A reduction's gradient is the incoming one broadcast back, value for value: torch's
// x.sum().backward(torch.tensor(-0.0)) leaves x.grad [-0., -0., -0.] (signbit True), as
// does sum(1)'s. (A zero fill plus the gradient made them +0.)
TEST(Autograd, ReductionGradientsBroadcastTheIncomingOneAsItIs) {
  Tensor x = zeros({2, 3}).requires_grad_();
  x.sum().backward(full({}, -0.0));
  for (float g : x.grad().to_vector<float>()) EXPECT_TRUE(std::signbit(g)) << g;
  x.mutable_grad() = Tensor();
  x.sum(1).backward(from_vector<float>({-0.0f, 2.0f}));
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 0, 0, 2, 2, 2}));
  EXPECT_TRUE(std::signbit(x.grad().to_vector<float>()[0]));
  x.mutable_grad() = Tensor();
  x.mean(0, true).backward(from_vector<float>({2, 4, 6}, {1, 3}));
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

TEST(Autograd, AccumulatesOverUsesAndCalls) {
  Tensor x = values({3}, 1).requires_grad_();
  (x * x + x).sum().backward();  // d = 2x + 1
  auto g = x.grad().to_vector<double>();
  auto xv = x.to_vector<double>();
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(g[i], 2 * xv[i] + 1);
  x.sum().backward();  // accumulates
  g = x.grad().to_vector<double>();
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(g[i], 2 * xv[i] + 2);
}

// Note [Stealing gradients]: the engine keeps a gradient nothing else references and adds
// later ones in place, but a tensor someone else holds (the caller's seed, one a hook kept,
// a view of another tensor) is copied: writing it afterwards never changes the gradient.
TEST(Autograd, LeafGradientsAreNeverAliasesOfOtherTensors) {
  Tensor w = from_vector<float>({1, 2, 3}).requires_grad_();
  Tensor seed = from_vector<float>({5, 6, 7});
  w.backward(seed);  // a leaf: its gradient is the seed's value, not the seed
  seed.copy_(zeros({3}));
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{5, 6, 7}));

  Tensor kept;
  Tensor a = from_vector<float>({1, 2, 3}).requires_grad_();
  a.register_hook([&](const Tensor& g) {
    kept = g;
    return Tensor();
  });
  (a * 2.0).sum().backward();
  kept.copy_(full({3}, -1.0));
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{2, 2, 2}));

  // Gradients that are views of one tensor (cat's backward narrows it) stay apart.
  Tensor p = from_vector<float>({1, 2}).requires_grad_();
  Tensor q = from_vector<float>({3}).requires_grad_();
  (cat({p, q}) * from_vector<float>({1, 2, 3})).sum().backward();
  EXPECT_EQ(p.grad().to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(q.grad().to_vector<float>(), (std::vector<float>{3}));

  // A second pass adds into the gradient in place, as torch's grad += new_grad: a handle
  // read before sees the sum, as in torch.
  Tensor before = a.grad();
  (a * 3.0).sum().backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{5, 5, 5}));
  EXPECT_TRUE(before.is_same(a.grad()));
  EXPECT_EQ(before.to_vector<float>(), (std::vector<float>{5, 5, 5}));
}

// Note [copy_ and autograd]: copy_ records no node, so with grad mode on it raises where
// autograd would have to see it. Before, y = x * 2; y.copy_(z * 3); y.sum().backward() gave
// x the gradient 2 (torch: 0, y no longer depends on x) and z none (torch: 3).
// Note [copy_ and autograd]; the gradients are torch 1.13's.
TEST(Autograd, CopyIsRecordedAsTorchsCopyBackwards) {
  Tensor x = ones({3}).requires_grad_(), z = ones({3}).requires_grad_();
  Tensor y = x * 2.0;
  y.copy_(z * 3.0);  // the destination's history is rebased on the source
  EXPECT_EQ(y.grad_fn_name(), "CopyBackwards");
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{3, 3, 3}));
  y.sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 0, 0}));  // before: 2 2 2
  EXPECT_EQ(z.grad().to_vector<float>(), (std::vector<float>{3, 3, 3}));  // before: none
  // A fresh float64 buffer from a float32 source: the gradient returns in float32.
  Tensor buffer = zeros({3}, TensorOptions().dtype(DType::float64));
  Tensor s = from_vector(std::vector<float>{1, 2, 3}, {3}).requires_grad_();
  buffer.copy_(s);
  EXPECT_TRUE(buffer.requires_grad());
  (buffer * buffer).sum().backward();
  EXPECT_EQ(s.grad().dtype(), DType::float32);
  EXPECT_EQ(s.grad().to_vector<float>(), (std::vector<float>{2, 4, 6}));
  // An integer destination takes the values and no history, as torch.
  Tensor integers = zeros({3}, TensorOptions().dtype(DType::int64));
  integers.copy_(s);
  EXPECT_FALSE(integers.requires_grad());
  EXPECT_EQ(integers.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3}));
}

// A leaf that requires grad, or a view of one, is refused as torch refuses it, and nothing
// is written; under NoGradGuard, or with neither side requiring grad, copy_ is a plain copy.
// (Copies into views and shared storage with grad: test_copy_slices.cpp.)
TEST(Autograd, CopyIntoALeafThatRequiresGradRaisesWithGradModeOn) {
  Tensor x = ones({3}).requires_grad_(), z = ones({3}).requires_grad_();
  Tensor base = zeros({4});
  Tensor view = base.narrow(0, 0, 3);
  Tensor w = x * 1.0;
  const Tensor square = w * w;                               // saves w for its backward
  EXPECT_THROW(x.copy_(zeros({3})), Error);                  // a leaf that requires grad (as torch)
  EXPECT_THROW(x.narrow(0, 1, 1).copy_(zeros({1})), Error);  // a view of one
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 1, 1}));
  square.sum().backward();  // the graph is as it was
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{2, 2, 2}));
  {
    NoGradGuard no_grad;  // as an optimiser step or an initialiser
    x.copy_(full({3}, 5.0f));
    view.copy_(z);
  }
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{5, 5, 5}));
  EXPECT_TRUE(x.is_leaf() && x.requires_grad());
  EXPECT_EQ(base.to_vector<float>(), (std::vector<float>{1, 1, 1, 0}));
  EXPECT_FALSE(base.requires_grad());
  view.copy_(full({3}, 7.0f));  // neither side requires grad: a plain copy
  EXPECT_EQ(base.to_vector<float>(), (std::vector<float>{7, 7, 7, 0}));
  EXPECT_FALSE(base.requires_grad());
}

TEST(Autograd, LeavesNoGradAndDetach) {
  Tensor w = ones({2}).requires_grad_();
  EXPECT_TRUE(w.is_leaf());
  const Tensor y = w * 2.0;
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(y.grad_fn_name(), "MulBackward");
  EXPECT_FALSE(y.detach().requires_grad());
  {
    NoGradGuard guard;
    EXPECT_FALSE(is_grad_enabled());
    EXPECT_FALSE((w * 2.0).requires_grad());
  }
  EXPECT_TRUE(is_grad_enabled());
  EXPECT_THROW(tensor({1, 2}).requires_grad_(), DTypeError);
  EXPECT_THROW(Tensor(y).requires_grad_(false), Error);
  EXPECT_THROW(ones({2}).sum().backward(), Error);  // nothing requires grad
  EXPECT_THROW(y.backward(), ShapeError);           // not a scalar, no gradient given
  y.backward(ones({2}));
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{2, 2}));
}

TEST(Autograd, RetainGraphAndSecondBackward) {
  Tensor x = values({2}, 1).requires_grad_();
  const Tensor loss = (exp(x)).sum();
  loss.backward({}, /*retain_graph=*/true);
  loss.backward();
  EXPECT_THROW(loss.backward(), Error);  // freed
  const auto g = x.grad().to_vector<double>();
  const auto xv = x.to_vector<double>();
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(g[i], 2 * std::exp(xv[i]), 1e-12);
}

TEST(Gradcheck, MaxMinAndTheirTies) {
  gradcheck([](auto& x) { return maximum(x[0], x[1]); }, {values({2, 3}, 1), values({3}, 2)});
  gradcheck([](auto& x) { return minimum(x[0], x[1]); }, {values({2, 3}, 3), values({2, 1}, 4)});
  gradcheck([](auto& x) { return x[0].max(); }, {values({2, 3}, 5)});
  gradcheck([](auto& x) { return x[0].min(1); }, {values({3, 4}, 6)});
  gradcheck([](auto& x) { return x[0].max(0, true); }, {values({3, 4}, 7)});
  // Ties share the gradient evenly (as torch.amax and torch.maximum).
  Tensor t = f64({1.0, 3.0, 3.0}, {3}).requires_grad_();
  t.max().backward();
  EXPECT_EQ(t.grad().to_vector<double>(), (std::vector<double>{0.0, 0.5, 0.5}));
  Tensor a = f64({2.0, 1.0}, {2}).requires_grad_(), b = f64({2.0, 5.0}, {2}).requires_grad_();
  maximum(a, b).sum().backward();
  EXPECT_EQ(a.grad().to_vector<double>(), (std::vector<double>{0.5, 0.0}));
  EXPECT_EQ(b.grad().to_vector<double>(), (std::vector<double>{0.5, 1.0}));
  EXPECT_FALSE(argmax(t).requires_grad());
  // An infinite extreme (torch_diff's ties, issue #44): the gradient goes to it, not NaN
  // everywhere (the mask was built from y - x, NaN for inf - inf).
  Tensor inf = f64({INFINITY, 1.5, INFINITY, -INFINITY}, {2, 2}).requires_grad_();
  inf.max(1).sum().backward();
  EXPECT_EQ(inf.grad().to_vector<double>(), (std::vector<double>{1.0, 0.0, 1.0, 0.0}));
  Tensor ninf = f64({-INFINITY, -INFINITY, 2.0}, {3}).requires_grad_();
  ninf.min().backward();
  EXPECT_EQ(ninf.grad().to_vector<double>(), (std::vector<double>{0.5, 0.5, 0.0}));
}

// torch 1.13's rules, which differ by form: max()/min() share among ties and among the NaNs
// when the result is NaN (evenly_distribute_backward); max(dim)/min(dim) give the whole
// gradient to the element their index selects, the first extreme or the first NaN
// (value_selecting_reduction_backward); amax/amin share among ties and are NaN everywhere
// for a NaN result. hetero shared among ties in max(dim) and gave NaN everywhere for a NaN
// max() or max(dim).
TEST(Gradcheck, MaxMinGradientsFollowTorchsFormForTiesAndNaN) {
  const double nan = std::nan("");
  const auto grad_of = [](std::vector<double> v, const auto& f) {
    Tensor x = f64(v, {static_cast<std::int64_t>(v.size())}).requires_grad_();
    f(x).sum().backward();
    return x.grad().to_vector<double>();
  };
  const auto max_all = [](const Tensor& x) { return x.max(); };
  const auto min_all = [](const Tensor& x) { return x.min(); };
  const auto max_dim = [](const Tensor& x) { return x.max(0); };
  const auto min_dim = [](const Tensor& x) { return x.min(0, true); };
  const auto amax_all = [](const Tensor& x) { return x.amax(); };
  EXPECT_EQ(grad_of({1, nan, 3, nan}, max_all), (std::vector<double>{0, 0.5, 0, 0.5}));
  EXPECT_EQ(grad_of({1, nan, 3, nan}, min_all), (std::vector<double>{0, 0.5, 0, 0.5}));
  EXPECT_EQ(grad_of({1, nan, 3, nan}, max_dim), (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(grad_of({1, nan, 3, nan}, min_dim), (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(grad_of({3, 1, 3}, max_dim), (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(grad_of({1, 3, 1}, min_dim), (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(grad_of({3, 1, 3}, max_all), (std::vector<double>{0.5, 0, 0.5}));
  EXPECT_EQ(grad_of({3, 1, 3}, amax_all), (std::vector<double>{0.5, 0, 0.5}));
  for (const double g : grad_of({1, nan, 3}, amax_all)) EXPECT_TRUE(std::isnan(g));
  // Along a middle dimension of a 3-d tensor, keepdim or not: one element of each line.
  Tensor cube = f64({2, 2, 1, 5, 5, 5, 0, 0, 7, 7, 7, 7}, {2, 3, 2}).requires_grad_();
  cube.max(1).sum().backward();
  EXPECT_EQ(cube.grad().to_vector<double>(),
            (std::vector<double>{0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0}));
  // An upstream inf or NaN reaches only the selected element.
  Tensor row = f64({4, 4, 1}, {3}).requires_grad_();
  row.max(0).backward(f64({INFINITY}, {}));
  EXPECT_EQ(row.grad().to_vector<double>(), (std::vector<double>{INFINITY, 0, 0}));
}

// relu, maximum and minimum select their gradients, as torch's threshold_backward and
// where(a == b, g / 2, g).masked_fill(a loses, 0): an inf or NaN upstream gradient does not
// reach a masked position (multiplying by a 0/1 mask gave NaN there; semantics row 8).
// Expected values from torch 1.13.
TEST(Gradcheck, ReluMaximumMinimumSelectTheirGradients) {
  const double nan = std::nan(""), inf = INFINITY;
  Tensor x = f64({-1.0, 2.0, 0.0, nan}, {4}).requires_grad_();
  relu(x).backward(f64({nan, inf, inf, 1.0}, {4}));
  const auto gx = x.grad().to_vector<double>();
  EXPECT_EQ(gx, (std::vector<double>{0.0, inf, 0.0, 1.0}));
  const Tensor g = f64({nan, inf, 4.0, 1.0}, {4});
  Tensor a = f64({1.0, 3.0, 2.0, nan}, {4}).requires_grad_();
  Tensor b = f64({2.0, 1.0, 2.0, 0.0}, {4}).requires_grad_();
  maximum(a, b).backward(g);
  EXPECT_EQ(a.grad().to_vector<double>(), (std::vector<double>{0.0, inf, 2.0, 1.0}));
  const auto gb = b.grad().to_vector<double>();
  EXPECT_TRUE(std::isnan(gb[0]));
  EXPECT_EQ(std::vector<double>(gb.begin() + 1, gb.end()), (std::vector<double>{0.0, 2.0, 1.0}));
  Tensor c = f64({1.0, 3.0, 2.0, nan}, {4}).requires_grad_();
  Tensor d = f64({2.0, 1.0, 2.0, 0.0}, {4}).requires_grad_();
  minimum(c, d).backward(g);
  const auto gc = c.grad().to_vector<double>();
  EXPECT_TRUE(std::isnan(gc[0]));
  EXPECT_EQ(std::vector<double>(gc.begin() + 1, gc.end()), (std::vector<double>{0.0, 2.0, 1.0}));
  EXPECT_EQ(d.grad().to_vector<double>(), (std::vector<double>{0.0, inf, 2.0, 1.0}));
}

// The activations of <hetero/activations.hpp> against torch 1.13 (float64 values printed by
// torch.nn.functional; within 4 ulps, NaN for NaN, infinities exact), their errors, the
// 16-bit path (computed in float32, rounded once), the modules, and the gradients
// (test::expect_like_torch).
using test::expect_like_torch;

TEST(Activations, MatchTorch) {
  const double nan = std::nan(""), inf = INFINITY;
  const Tensor x = f64({-3.0, -0.5, 0.0, 0.7, 2.5, nan, inf, -inf}, {8});
  expect_like_torch(gelu(x), {-0.00404969409489031, -0.15426876936299344, 0.0, 0.5306254434438489,
                              2.4844758366855597, nan, inf, nan});
  // At -3 the exact value (80-bit) is -0.0036373920817730178: hetero's x sigmoid(2u) is
  // within 4 ulps; torch's x (1 + tanh(u)) / 2 gives -0.0036373920817729943, 54 ulps off.
  expect_like_torch(gelu(x, "tanh"), {-0.0036373920817730178, -0.15428599017485606, 0.0,
                                      0.5305701347051167, 2.484915733910001, nan, inf, nan});
  expect_like_torch(silu(x), {-0.14227761953270035, -0.1887703343990727, 0.0, 0.46773144051771626,
                              2.3103545499468914, nan, inf, nan});
  expect_like_torch(leaky_relu(x, 0.2), {-0.6000000000000001, -0.1, 0.0, 0.7, 2.5, nan, inf, -inf});
  expect_like_torch(elu(x, 0.5),
                    {-0.475106465816068, -0.1967346701436833, 0.0, 0.7, 2.5, nan, inf, -0.5});
  expect_like_torch(softplus(x, 2.0, 1.0), {0.0012378425688652247, 0.15663084375911143,
                                            0.34657359027997264, 0.7, 2.5, nan, inf, 0.0});
  // float32 as torch's float kernel; bfloat16 computed in float32 and rounded once.
  const Tensor g32 = gelu(x.to(DType::float32));
  EXPECT_EQ(g32.dtype(), DType::float32);
  // At -3, 1 + erf(x / sqrt 2) cancels: hetero (SLEEF's erf) is within 16 float32 ulps of
  // the exact -0.00404969409489031; torch's float kernel gives -0.0040498674, ~370 ulps off.
  EXPECT_NEAR(g32.to_vector<float>()[0], -0.00404969409489031, 16 * 4.66e-10);
  EXPECT_FLOAT_EQ(g32.to_vector<float>()[3], 0.5306254625320435f);
  const Tensor gb = gelu(x.to(DType::bfloat16));
  EXPECT_EQ(gb.dtype(), DType::bfloat16);
  const auto vb = gb.to_vector<double>();
  EXPECT_EQ(vb[0], -0.004058837890625);
  EXPECT_EQ(vb[1], -0.154296875);
  EXPECT_EQ(vb[3], 0.53125);
  EXPECT_EQ(vb[4], 2.484375);
  // Errors as torch's: integer input, an unknown approximation, softplus's beta of 0.
  const Tensor ints = from_vector(std::vector<double>{3, -2}, {2}).to(DType::int64);
  EXPECT_THROW((void)gelu(ints), NotImplementedError);
  EXPECT_THROW((void)silu(ints), NotImplementedError);
  EXPECT_THROW((void)leaky_relu(ints), NotImplementedError);
  EXPECT_THROW((void)elu(ints.to(DType::bool_)), NotImplementedError);
  EXPECT_THROW((void)softplus(ints.to(DType::int32)), NotImplementedError);
  EXPECT_THROW((void)gelu(x, "erf"), ValueError);
  EXPECT_THROW((void)nn::GELU("exact"), ValueError);
  EXPECT_THROW((void)softplus(x, 0.0), ValueError);
  // The modules call the functions with their parameters.
  expect_like_torch(nn::LeakyReLU(0.2)(x), leaky_relu(x, 0.2).to_vector<double>());
  expect_like_torch(nn::ELU(0.5)(x), elu(x, 0.5).to_vector<double>());
  expect_like_torch(nn::Softplus(2.0, 1.0)(x), softplus(x, 2.0, 1.0).to_vector<double>());
  expect_like_torch(nn::GELU("tanh")(x), gelu(x, "tanh").to_vector<double>());
  expect_like_torch(nn::SiLU()(x), silu(x).to_vector<double>());
}

TEST(Gradcheck, Activations) {
  gradcheck([](auto& x) { return gelu(x[0]); }, {values({2, 3}, 1)});
  gradcheck([](auto& x) { return gelu(x[0], "tanh"); }, {values({2, 3}, 2)});
  gradcheck([](auto& x) { return silu(x[0]); }, {values({2, 3}, 3)});
  gradcheck([](auto& x) { return leaky_relu(x[0], 0.3); }, {values({2, 3}, 4)});
  gradcheck([](auto& x) { return elu(x[0], 0.7); }, {values({2, 3}, 5)});
  gradcheck([](auto& x) { return softplus(x[0], 2.0, 1.5); }, {values({2, 3}, 6)});
  gradcheck([](auto& x) { return selu(x[0]); }, {values({2, 3}, 7)});
  gradcheck([](auto& x) { return celu(x[0], 0.6); }, {values({2, 3}, 8)});
  gradcheck([](auto& x) { return mish(x[0]); }, {values({2, 3}, 9)});
  gradcheck([](auto& x) { return logsigmoid(x[0]); }, {values({2, 3}, 10)});
  gradcheck([](auto& x) { return softsign(x[0]); }, {values({2, 3}, 11)});
  // The piecewise ones away from their kinks (values lie in [-1.5, 1.5]).
  gradcheck([](auto& x) { return hardtanh(x[0], -0.8, 1.2); }, {values({2, 3}, 12)});
  gradcheck([](auto& x) { return relu6(x[0] * 4.0); }, {values({2, 3}, 13)});
  gradcheck([](auto& x) { return hardsigmoid(x[0] * 2.5); }, {values({2, 3}, 14)});
  gradcheck([](auto& x) { return hardswish(x[0] * 2.5); }, {values({2, 3}, 15)});
  gradcheck([](auto& x) { return prelu(x[0], x[1]); }, {values({2, 3, 2}, 16), values({3}, 17)});
  // Values of torch's GeluBackward; and leaky_relu's gradient as torch's
  // leaky_relu_backward, x > 0 ? g : g * slope: an infinite g at x < 0 with slope 0 is NaN.
  Tensor z = f64({-1.0, 2.0}, {2}).requires_grad_();
  gelu(z).backward(f64({1.0, 1.0}, {2}));
  EXPECT_NEAR(z.grad().to_vector<double>()[0], -0.08331547058768635, 1e-15);
  EXPECT_NEAR(z.grad().to_vector<double>()[1], 1.085231801078197, 1e-15);
  Tensor w = f64({-1.0, 2.0}, {2}).requires_grad_();
  leaky_relu(w, 0.0).backward(f64({INFINITY, 1.0}, {2}));
  EXPECT_TRUE(std::isnan(w.grad().to_vector<double>()[0]));
  EXPECT_EQ(w.grad().to_vector<double>()[1], 1.0);
}

TEST(Autograd, ModuleParametersRequireGradAndZeroGrad) {
  nn::Sequential net{nn::Linear(3, 2)};
  for (const auto& p : net.parameters()) EXPECT_TRUE(p.requires_grad());
  nn::MSELoss()(net(ones({4, 3})), zeros({4, 2})).backward();
  for (const auto& p : net.parameters()) EXPECT_TRUE(p.grad().defined());
  net.zero_grad();
  for (const auto& p : net.parameters()) EXPECT_FALSE(p.grad().defined());
}

TEST(Optim, SgdMatchesTorchFormulas) {
  // Two steps with momentum 0.9, weight decay 0.1, lr 0.5 on loss = sum(p^2) / 2
  // (grad = p): computed by hand from torch.optim.SGD's update rule.
  Tensor p = f64({1.0, -2.0}, {2}).requires_grad_();
  optim::SGD sgd({p}, {.lr = 0.5, .momentum = 0.9, .weight_decay = 0.1});
  std::vector<double> ref{1.0, -2.0}, buf{0, 0};
  for (int step = 0; step < 2; ++step) {
    sgd.zero_grad();
    ((p * p).sum() / 2.0).backward();
    sgd.step();
    for (int i = 0; i < 2; ++i) {
      const double d = ref[i] + 0.1 * ref[i];
      buf[i] = step == 0 ? d : 0.9 * buf[i] + d;
      ref[i] -= 0.5 * buf[i];
    }
    const auto got = p.to_vector<double>();
    for (int i = 0; i < 2; ++i) EXPECT_NEAR(got[i], ref[i], 1e-12) << "step " << step;
  }
  EXPECT_THROW(optim::SGD({p}, {.lr = -1}), ValueError);
  EXPECT_THROW(optim::SGD({p * 2}, {.lr = 1}), ValueError);  // can't optimize a non-leaf Tensor
  // A frozen (or integer) parameter is accepted and skipped, as torch (issue #50 item 6).
  Tensor frozen = ones({1}), steps = zeros({1}, TensorOptions().dtype(DType::int64));
  optim::SGD with_frozen({p, frozen, steps}, {.lr = 1});
  with_frozen.step();
  EXPECT_TRUE(equal(frozen, ones({1})));
}

}  // namespace

// Issue #25: dropping a deep graph (`total = total + loss` over 200k steps, any 300k-op
// chain) overflowed the stack at scope exit (SIGSEGV); nodes are released iteratively.
TEST(Autograd, DroppingAVeryDeepGraphDoesNotOverflowTheStack) {
  Tensor x = full({}, 1.0);
  x.requires_grad_();
  {
    Tensor total = full({}, 0.0);
    for (int i = 0; i < 300000; ++i) total = total + x;
    EXPECT_TRUE(total.requires_grad());
  }  // the chain is dropped here
  Tensor y = x * 2.0;
  y.backward();
  EXPECT_EQ(x.grad().item<float>(), 2.0f);  // the leaf and new graphs still work
}

// Note [Saved tensor versions] (issue #25 item 14): a tensor saved for backward and then
// written in place makes backward raise, as torch's version counter does, instead of
// computing the gradient from the new values (before: x.grad was 5, torch raises).
TEST(Autograd, BackwardRefusesASavedTensorWrittenInPlaceSince) {
  Tensor x = ones({3});
  x.requires_grad_();
  Tensor a = full({3}, 2.0f);
  Tensor y = (x * a).sum();  // MulBackward saves a
  a.copy_(full({3}, 5.0f));
  try {
    y.backward();
    ADD_FAILURE() << "backward used the overwritten tensor; x.grad = "
                  << x.grad().to_vector<float>()[0];
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("MulBackward"), std::string::npos) << m;
    EXPECT_NE(m.find("modified by an in-place operation"), std::string::npos) << m;
    EXPECT_NE(m.find("at version 1, expected version 0"), std::string::npos) << m;
  }
}

TEST(Autograd, VersionsAreSharedByViewsAndOnlyWritesSinceTheSaveCount) {
  Tensor x = ones({3});
  x.requires_grad_();
  {  // a write through another view of the saved tensor's storage counts
    Tensor base = full({4}, 2.0f);
    Tensor y = (x * base.narrow(0, 1, 3)).sum();
    base.copy_(zeros({4}));
    EXPECT_THROW(y.backward(), Error);
  }
  {  // writes before the save, a clone changed after, and writes after backward are fine
    Tensor a = full({3}, 1.0f);
    a.copy_(full({3}, 3.0f));
    Tensor kept = a.clone();
    Tensor y = (x * kept).sum();
    a.copy_(zeros({3}));
    y.backward({}, /*retain_graph=*/true);
    EXPECT_EQ(x.grad().to_vector<float>(), std::vector<float>({3.0f, 3.0f, 3.0f}));
    kept.copy_(zeros({3}));
    EXPECT_THROW(y.backward(), Error) << "the retained graph saw the new values";
  }
  {  // an op that saves its output (exp): writing the output is refused too
    Tensor e = x.exp();
    Tensor y = e.sum();
    {
      NoGradGuard no_grad;
      e.detach().copy_(zeros({3}));
    }
    EXPECT_THROW(y.backward(), Error);
  }
}

TEST(Autograd, AnOptimiserStepBetweenForwardAndBackwardIsRefused) {
  // As torch: the step writes the weights MatmulBackward saved.
  Tensor w = full({2, 2}, 1.0f);
  w.requires_grad_();
  Tensor x = ones({1, 2});
  x.requires_grad_();
  optim::SGD sgd({w}, {.lr = 0.1});
  Tensor loss = matmul(x, w).sum();
  w.mutable_grad() = ones({2, 2});
  sgd.step();
  EXPECT_THROW(loss.backward(), Error);
}

TEST(Autograd, TensorVersionCountsWritesAndIncrementVersionCountsOutsideOnes) {
  Tensor a = zeros({4});
  Tensor view = a.narrow(0, 1, 2);
  EXPECT_EQ(tensor_version(a), 0u);
  view.copy_(ones({2}));
  EXPECT_EQ(tensor_version(a), 1u) << "views share the count, as torch";
  EXPECT_EQ(tensor_version(a.detach()), 1u);
  Tensor x = ones({4});
  x.requires_grad_();
  Tensor y = (x * a).sum();
  increment_version(a);  // as an application's own kernel writing a's memory would
  EXPECT_EQ(tensor_version(view), 2u);
  EXPECT_THROW(y.backward(), Error);
  EXPECT_THROW(tensor_version(Tensor()), Error);
  EXPECT_THROW(increment_version(Tensor()), Error);
}

// Issue #27's ops: convolution, pooling, new views, statistics and LayerNorm.
TEST(Gradcheck, ConvolutionAndPooling) {
  gradcheck(
      [](auto& x) {
        return conv2d(x[0], x[1], x[2], {2, 1}, {1, 2}, {1, 2}, 1);
      },
      {values({2, 2, 5, 6}, 1), values({3, 2, 2, 3}, 2), values({3}, 3)});
  gradcheck([](auto& x) { return conv2d(x[0], x[1], Tensor(), 1, 0, 1, 2); },
            {values({4, 4, 4}, 4), values({2, 2, 3, 2}, 5)});  // unbatched, groups 2
  gradcheck(
      [](auto& x) {
        return avg_pool2d(x[0], {3, 2}, Size2{2, 2}, {1, 1}, true, false);
      },
      {values({1, 2, 7, 6}, 6)});
  gradcheck(
      [](auto& x) {
        return max_pool2d(x[0], 2, Size2{1, 2}, 1, 1, true);
      },
      {values({2, 1, 5, 5}, 7)});
  gradcheck([](auto& x) { return adaptive_avg_pool2d(x[0], {3, 2}); }, {values({1, 2, 7, 5}, 8)});
  gradcheck([](auto& x) { return adaptive_max_pool2d(x[0], {3, 2}); }, {values({1, 2, 7, 5}, 11)});
  // unfold and fold: overlapping blocks (stride < kernel), dilation, padding.
  gradcheck(
      [](auto& x) {
        return unfold(x[0], {2, 3}, {2, 1}, {1, 0}, {1, 2});
      },
      {values({2, 2, 5, 6}, 9)});
  gradcheck(
      [](auto& x) {
        return fold(x[0], {4, 5}, {2, 2}, 1, {1, 0}, 1);
      },
      {values({1, 8, 20}, 10)});
}

TEST(Gradcheck, PermuteExpandFlatten) {
  gradcheck(
      [](auto& x) {
        return x[0].permute({2, 0, 1}) * x[1];
      },
      {values({2, 3, 4}, 1), values({4, 2, 3}, 2)});
  gradcheck(
      [](auto& x) {
        return x[0].expand({2, 3, 4}) * x[1];
      },
      {values({3, 1}, 3), values({2, 3, 4}, 4)});
  gradcheck(
      [](auto& x) {
        return x[0].permute({1, 0, 2}).flatten(1) * 2.0;
      },
      {values({2, 3, 4}, 5)});
}

TEST(Gradcheck, VarStdLogsumexpLayerNorm) {
  gradcheck([](auto& x) { return var(x[0], 1, 1, true); }, {values({3, 4}, 1)});
  gradcheck([](auto& x) { return var(x[0], 0); }, {values({3, 4}, 2)});
  gradcheck([](auto& x) { return hetero::std(x[0], 0, 2, false); }, {values({5, 3}, 3)});
  gradcheck([](auto& x) { return var(x[0], -1, 0, false); }, {values({2, 3, 4}, 7)});
  // torch's var_backward, 2 / (n - correction) * g * (x - mean): an infinite upstream
  // gradient gives +-inf, not the NaN of differentiating through the mean (issue #44).
  Tensor x = f64({0.5, -0.5, 1.0}, {3}).requires_grad_();
  (hetero::std(x, 0, 1, true) * INFINITY).sum().backward();
  const auto g = x.grad().to_vector<double>();
  EXPECT_EQ(g[0], INFINITY);
  EXPECT_EQ(g[1], -INFINITY);
  EXPECT_EQ(g[2], INFINITY);
  gradcheck([](auto& x) { return logsumexp(x[0], -1, false); }, {values({3, 4}, 4)});
  nn::LayerNorm ln({3, 4}, 1e-5, true, DType::float64);
  {
    NoGradGuard no_grad;
    ln.weight().copy_(values({3, 4}, 5));
    ln.bias().copy_(values({3, 4}, 6));
  }
  gradcheck([&](auto& x) { return ln(x[0]); }, {values({2, 3, 4}, 7)}, 1e-5);
  // The affine parameters' gradients too, as inputs of the same formula.
  gradcheck(
      [](auto& x) {
        const Tensor c = x[0] - mean(x[0], -1, true);
        return c / sqrt(var(x[0], -1, 0, true) + 1e-5) * x[1] + x[2];
      },
      {values({2, 4}, 8), values({4}, 9), values({4}, 10)});
}

// --- hooks (hooks.hpp) -----------------------------------------------------------------

// torch 1.13: a = [1, 2, 3] (hook: g * 2), x = a * a (hook: g * 10), x.sum().backward()
// gives a.grad = [40, 80, 120].
TEST(AutogradHooks, RegisterHookReplacesTheGradientAsTorch) {
  Tensor a = from_vector<float>({1, 2, 3}).requires_grad_();
  a.register_hook([](const Tensor& g) { return g * 2.0; });
  Tensor x = a * a;
  x.register_hook([](const Tensor& g) { return g * 10.0; });
  x.sum().backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{40, 80, 120}));
}

TEST(AutogradHooks, PostAccumulateHookRunsOncePerPassAfterTheSum) {
  Tensor a = from_vector<double>({1, 2}).requires_grad_();
  int calls = 0;
  std::vector<double> seen;
  a.register_post_accumulate_grad_hook([&](Tensor& leaf) {
    ++calls;
    seen = leaf.grad().to_vector<double>();
  });
  // a reaches the loss through three ops: one accumulation of 2a + 3 + 1 per pass.
  ((a * a).sum() + (a * 3.0).sum() + a.sum()).backward();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, (std::vector<double>{6, 8}));
  ((a * a).sum() + a.sum()).backward();  // accumulates: 6 + 3, 8 + 5
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(seen, (std::vector<double>{9, 13}));
}

TEST(AutogradHooks, RemovedHooksAreNotCalledAndHooksDoNotKeepTheLeaf) {
  Tensor a = from_vector<float>({1, 2}).requires_grad_();
  int grad_calls = 0, post_calls = 0;
  HookHandle h1 = a.register_hook([&](const Tensor&) {
    ++grad_calls;
    return Tensor();
  });
  HookHandle h2 = a.register_post_accumulate_grad_hook([&](Tensor&) { ++post_calls; });
  const long owners = a.impl().use_count();
  (a * a).sum().backward();
  EXPECT_EQ(grad_calls, 1);
  EXPECT_EQ(post_calls, 1);
  h1.remove();
  h2.remove();
  h2.remove();  // idempotent
  (a * a).sum().backward();
  EXPECT_EQ(grad_calls, 1);
  EXPECT_EQ(post_calls, 1);
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{4, 8}));
  EXPECT_EQ(a.impl().use_count(), owners);
}

TEST(AutogradHooks, MisuseRaisesError) {
  Tensor plain = from_vector<float>({1, 2});
  EXPECT_THROW(plain.register_hook([](const Tensor& g) { return g; }), Error);
  EXPECT_THROW(plain.register_post_accumulate_grad_hook([](Tensor&) {}), Error);
  Tensor a = from_vector<float>({1, 2}).requires_grad_();
  Tensor y = a * 2.0;
  EXPECT_THROW(y.register_post_accumulate_grad_hook([](Tensor&) {}), Error);
  y.register_hook([](const Tensor&) { return zeros({3}); });  // wrong shape
  try {
    y.sum().backward();
    ADD_FAILURE() << "a hook's wrong shape went through";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hook"), std::string::npos) << e.what();
  }
}

// Note [Slice gradients]: narrow and select add their gradient into one buffer of the
// input's shape, made once, instead of a zero-filled gradient of the whole input per slice
// (quadratic in the number of slices: an RNN's steps). Values as before: overlapping and
// disjoint slices, a dense use beside them, a hook on a slice, a leaf and a non-leaf input,
// and retain_graph.
TEST(Autograd, SliceGradientsFillTheInputOnceAndKeepTheirValues) {
  constexpr std::int64_t T = 64;
  Tensor x = arange(0.0, static_cast<double>(T * 3), 1.0).reshape({T, 3}).requires_grad_();
  const Tensor w = arange(1.0, static_cast<double>(T + 1), 1.0).reshape({T, 1});
  Tensor y = x * 1.0;  // a non-leaf: its node's pending gradient takes the slices
  Tensor loss = zeros({});
  for (std::int64_t t = 0; t < T; ++t) loss = loss + (y[t] * w[t]).sum();
  profiler::start();
  loss.backward({}, /*retain_graph=*/true);
  const std::vector<profiler::Event> events = profiler::stop();
  std::int64_t fills = 0;
  for (const auto& e : events)
    if (e.category == "kernel" && e.name == "fill" && e.shape == "[64, 3]") ++fills;
  EXPECT_LE(fills, 1) << "a zero-filled gradient of all of x per slice";
  EXPECT_TRUE(equal(x.grad(), w.expand({T, 3})));
  // Again through the retained graph: the leaf accumulates the same values.
  loss.backward();
  EXPECT_TRUE(equal(x.grad(), w.expand({T, 3}) * 2.0));

  // Overlapping narrows, a dense use and a hook on one slice, against the dense formula.
  Tensor a = arange(0.0, 12.0, 1.0).reshape({3, 4}).requires_grad_();
  Tensor left = a.narrow(1, 0, 3), right = a.narrow(1, 1, 3);
  left.register_hook([](const Tensor& g) { return g * 10.0; });
  ((left * 2.0).sum() + (right * 3.0).sum() + (a * a).sum() + a[1].sum()).backward();
  Tensor want = a.detach() * 2.0;  // d(a*a)
  want = want + from_vector<float>({20, 20, 20, 0}, {1, 4}).to(want.dtype());
  want = want + from_vector<float>({0, 3, 3, 3}, {1, 4}).to(want.dtype());
  want = want + from_vector<float>({0, 1, 0}, {3, 1}).to(want.dtype());
  EXPECT_TRUE(equal(a.grad(), want));
}
