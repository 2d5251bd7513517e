// SPDX-License-Identifier: Apache-2.0
// nn::ctc_loss and nn::CTCLoss (nn/ctc_loss.hpp): torch 1.13's printed values and logits
// gradients, a second formula (every alignment enumerated), infinite losses and their NaN
// gradient or zero_infinity, an empty input, and the refusals. Random cases against torch:
// tests/torch_layers (kind ctc).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

Tensor ints(const std::vector<std::int64_t>& v) { return tensor(v); }

// (torch.arange(48).reshape(6, 2, 4) * 0.37).remainder(1.3), float64
Tensor logits() {
  return remainder((arange(48).to(DType::float64) * 0.37).reshape({6, 2, 4}),
                   full({}, 1.3, TensorOptions().dtype(DType::float64)));
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// -log of the summed probability of every path of `steps` classes that collapses (repeats
// merged, then blanks removed) to `target`: the definition CTC's recursion computes.
double brute_force(const std::vector<double>& lp, std::int64_t steps, std::int64_t classes,
                   const std::vector<std::int64_t>& target, std::int64_t blank) {
  double total = 0;
  std::vector<std::int64_t> path(static_cast<std::size_t>(steps), 0);
  for (;;) {
    std::vector<std::int64_t> collapsed;
    for (std::size_t t = 0; t < path.size(); ++t)
      if (path[t] != blank && (t == 0 || path[t] != path[t - 1])) collapsed.push_back(path[t]);
    if (collapsed == target) {
      double log_p = 0;
      for (std::size_t t = 0; t < path.size(); ++t)
        log_p += lp[t * static_cast<std::size_t>(classes) + static_cast<std::size_t>(path[t])];
      total += std::exp(log_p);
    }
    std::size_t k = 0;  // next path (odometer)
    while (k < path.size() && ++path[k] == classes) path[k++] = 0;
    if (k == path.size()) break;
  }
  return -std::log(total);
}

}  // namespace

TEST(CTCLoss, ValuesAndGradientsAsTorch) {
  const Tensor x = logits().requires_grad_();
  const Tensor lp = log_softmax(x, 2);
  const Tensor tg = ints({1, 2, 2, 3, 1, 0}).reshape({2, 3});
  const Tensor il = ints({6, 5}), tl = ints({3, 2});
  const Tensor none = nn::ctc_loss(lp, tg, il, tl, {.reduction = nn::Reduction::none});
  expect_near(none.to_vector<double>(), {5.204260837593907, 3.593800996010012}, 1e-12);
  EXPECT_NEAR(nn::ctc_loss(lp, tg, il, tl).item<double>(), 1.7658270552681543, 1e-12);
  EXPECT_NEAR(nn::CTCLoss({.reduction = nn::Reduction::sum})(lp, tg, il, tl).item<double>(),
              8.798061833603919, 1e-12);
  // the same targets concatenated
  expect_near(nn::ctc_loss(lp, ints({1, 2, 2, 3, 1}), il, tl, {.reduction = nn::Reduction::none})
                  .to_vector<double>(),
              {5.204260837593907, 3.593800996010012}, 1e-12);
  none.sum().backward();
  const std::vector<double> g = x.grad().to_vector<double>();
  expect_near({g.begin(), g.begin() + 4},
              {-0.01196480028920869, -0.6650310559493142, 0.2765805787044609, 0.40041527753406203},
              1e-12);
  expect_near({g.begin() + 36, g.begin() + 40},
              {-0.2794026844420167, -0.26483422062970313, 0.39025883408011536, 0.15397807099160443},
              1e-12);
  expect_near({g.begin() + 44, g.end()}, {0, 0, 0, 0}, 0);  // t >= input length
  // another blank (the targets may then hold class 0)
  expect_near(nn::ctc_loss(lp.detach(), ints({1, 2, 2, 0, 1, 0}).reshape({2, 3}), il, tl,
                           {.blank = 3, .reduction = nn::Reduction::none})
                  .to_vector<double>(),
              {4.517654812014908, 3.851786285494534}, 1e-12);
}

// docs/semantics.md row 68: the gradient with respect to log_probs is the derivative (minus
// each step's alignment posterior, which sums to 1 over the classes); torch's adds
// exp(log_probs), whose sum over the classes cancels the -1.
TEST(CTCLoss, LogProbsGradientIsTheDerivative) {
  const Tensor lp = log_softmax(logits(), 2).detach().requires_grad_();
  nn::ctc_loss(lp, ints({1, 2, 2, 3, 1, 0}).reshape({2, 3}), ints({6, 5}), ints({3, 2}),
               {.reduction = nn::Reduction::sum})
      .backward();
  const std::vector<double> per_step = lp.grad().sum(2).to_vector<double>();  // [T, N]
  for (std::size_t t = 0; t < 6; ++t) {
    EXPECT_NEAR(per_step[2 * t], -1.0, 1e-12) << "step " << t;
    EXPECT_NEAR(per_step[2 * t + 1], t < 5 ? -1.0 : 0.0, 1e-12) << "step " << t;
  }
}

TEST(CTCLoss, IsTheSumOverEveryAlignment) {
  // 3 classes, 5 steps: 243 paths, unbatched
  const Tensor lp = log_softmax(sin(arange(15).to(DType::float64) * 1.7).reshape({5, 3}) * 2.0, 1);
  const std::vector<double> values = lp.to_vector<double>();
  for (const std::vector<std::int64_t>& target :
       {std::vector<std::int64_t>{1, 2}, {2, 2}, {1}, {}, {1, 1, 2}}) {
    for (const std::int64_t blank : {0, 1}) {
      bool has_blank = false;
      for (const std::int64_t c : target) has_blank = has_blank || c == blank;
      if (has_blank) continue;
      const Tensor loss = nn::ctc_loss(lp, ints(target), ints({5}),
                                       ints({static_cast<std::int64_t>(target.size())}),
                                       {.blank = blank, .reduction = nn::Reduction::none});
      EXPECT_EQ(loss.dim(), 0);
      EXPECT_NEAR(loss.item<double>(), brute_force(values, 5, 3, target, blank), 1e-12);
    }
  }
}

TEST(CTCLoss, InfiniteLossesAsTorch) {
  const Tensor lp = log_softmax(logits(), 2).detach().requires_grad_();
  const Tensor tg = ints({1, 2, 2, 3, 1, 0}).reshape({2, 3});
  // [2, 2] cannot be aligned in 2 steps (a repeat needs a blank between): inf, and torch's
  // gradient of it NaN; the other sample is unaffected
  const Tensor loss =
      nn::ctc_loss(lp, tg, ints({2, 5}), ints({3, 2}), {.reduction = nn::Reduction::none});
  EXPECT_TRUE(std::isinf(loss.to_vector<double>()[0]));
  EXPECT_NEAR(loss.to_vector<double>()[1], 3.593800996010012, 1e-12);
  loss.sum().backward();
  EXPECT_TRUE(std::isnan(lp.grad().to_vector<double>()[0]));
  EXPECT_FALSE(std::isnan(lp.grad().to_vector<double>()[4]));
  // zero_infinity: 0, its gradient 0
  const Tensor lp2 = lp.detach().requires_grad_();
  const Tensor zeroed = nn::ctc_loss(lp2, tg, ints({2, 5}), ints({3, 2}),
                                     {.reduction = nn::Reduction::none, .zero_infinity = true});
  EXPECT_EQ(zeroed.to_vector<double>()[0], 0.0);
  zeroed.sum().backward();
  EXPECT_EQ(lp2.grad().to_vector<double>()[0], 0.0);
  // input length 0: only the empty target is aligned (torch 1.13 reads out of bounds)
  const std::vector<double> empty =
      nn::ctc_loss(lp.detach(), tg, ints({0, 0}), ints({0, 1}), {.reduction = nn::Reduction::none})
          .to_vector<double>();
  EXPECT_EQ(empty[0], 0.0);
  EXPECT_TRUE(std::isinf(empty[1]) && empty[1] > 0);
}

TEST(CTCLoss, RefusesWhatTorchRefuses) {
  const Tensor lp = log_softmax(logits(), 2);
  const Tensor tg = ints({1, 2, 2, 3, 1, 0}).reshape({2, 3});
  const Tensor il = ints({6, 5}), tl = ints({3, 2});
  EXPECT_THROW(nn::ctc_loss(lp, tg, ints({7, 5}), tl), ValueError);   // > T
  EXPECT_THROW(nn::ctc_loss(lp, tg, ints({-1, 5}), tl), ValueError);  // negative
  EXPECT_THROW(nn::ctc_loss(lp, tg, il, ints({-1, 2})), ValueError);
  EXPECT_THROW(nn::ctc_loss(lp, tg, il, ints({4, 2})), ShapeError);     // wider than targets
  EXPECT_THROW(nn::ctc_loss(lp, ints({1, 2, 2}), il, tl), ShapeError);  // concatenated, short
  // lengths whose sum overflows, or that would size a table past memory: ShapeError first
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  EXPECT_THROW(nn::ctc_loss(lp, ints({1, 2, 2}), il, ints({big, big})), ShapeError);
  EXPECT_THROW(nn::ctc_loss(lp, ints({1, 2, 2}), il, ints({big / 2, 2})), ShapeError);
  EXPECT_THROW(nn::ctc_loss(lp, tg, ints({6}), tl), ShapeError);  // not batch_size
  EXPECT_THROW(nn::ctc_loss(lp, tg, il, tl, {.blank = 4}), ValueError);
  EXPECT_THROW(nn::ctc_loss(lp, tg + 4, il, tl), IndexError);
  EXPECT_THROW(nn::ctc_loss(lp, tg.to(DType::float32), il, tl), DTypeError);
  EXPECT_THROW(nn::ctc_loss(lp.to(DType::int64), tg, il, tl), DTypeError);
  EXPECT_THROW(nn::ctc_loss(lp.narrow(0, 0, 0), tg, ints({0, 0}), tl), ShapeError);
  EXPECT_THROW(nn::ctc_loss(lp.reshape({48}), tg, il, tl), ShapeError);
  EXPECT_THROW(nn::CTCLoss().forward(lp), ValueError);
}
