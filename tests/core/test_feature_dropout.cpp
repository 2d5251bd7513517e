// SPDX-License-Identifier: Apache-2.0
// Channel-wise dropout (feature_dropout, nn::Dropout1d/2d/3d), alpha dropout (alpha_dropout,
// nn::AlphaDropout, FeatureAlphaDropout) and nn::Identity, as torch 1.13's: the masks are
// random (torch's generator is not hetero's), so the checks are of structure and statistics
// with a fixed seed: whole channels kept or zeroed, the 1 / (1 - p) scale, alpha dropout's
// dropped value and its preserved mean and variance, eval mode, and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

TEST(FeatureDropout, ZeroesWholeChannelsAndScalesTheRest) {
  manual_seed(7);
  nn::Dropout2d drop(0.5);
  const Tensor x = ones({8, 16, 5, 5}).requires_grad_();
  const Tensor y = drop.forward(x);
  const std::vector<float> v = y.to_vector<float>();
  int zeroed = 0;
  for (std::size_t plane = 0; plane < 8 * 16; ++plane) {
    const float first = v[plane * 25];
    ASSERT_TRUE(first == 0.0f || first == 2.0f) << first;
    for (std::size_t k = 1; k < 25; ++k) ASSERT_EQ(v[plane * 25 + k], first) << "plane " << plane;
    zeroed += first == 0.0f;
  }
  EXPECT_GT(zeroed, 128 * 0.35);  // 64 expected; 3.4 standard deviations either side
  EXPECT_LT(zeroed, 128 * 0.65);
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), v);  // the gradient is the mask times the scale
  // Unbatched [C, H, W]: per channel too.
  const std::vector<float> u = nn::Dropout2d(0.5).forward(ones({16, 3, 3})).to_vector<float>();
  for (std::size_t c = 0; c < 16; ++c)
    for (std::size_t k = 1; k < 9; ++k) EXPECT_EQ(u[c * 9 + k], u[c * 9]);
  // 1-d and 3-d forms; eval is the identity.
  EXPECT_EQ(nn::Dropout1d(0.3).forward(ones({4, 6, 10})).shape(), (Shape{4, 6, 10}));
  EXPECT_EQ(nn::Dropout3d(0.3).forward(ones({2, 4, 3, 3, 3})).shape(), (Shape{2, 4, 3, 3, 3}));
  drop.eval();
  EXPECT_TRUE(drop.forward(x).is_same(x));
  EXPECT_EQ(nn::feature_dropout(ones({2, 3, 4}), 1.0, 1).sum().item<float>(), 0.0f);
  EXPECT_TRUE(nn::feature_dropout(x, 0.0, 2).is_same(x));
}

TEST(FeatureDropout, RefusesWhatTorchRefuses) {
  EXPECT_THROW(nn::Dropout2d(1.5), ValueError);
  EXPECT_THROW(nn::AlphaDropout(-0.1), ValueError);
  EXPECT_THROW(nn::Dropout1d().forward(ones({2, 3, 4, 5})), ShapeError);  // torch 1.13 too
  EXPECT_THROW(nn::Dropout2d().forward(ones({2, 3})), ShapeError);        // torch warns
  EXPECT_THROW(nn::Dropout3d().forward(ones({2, 3, 4})), ShapeError);
  EXPECT_THROW(nn::feature_dropout(ones({2, 3, 4}, DType::int64), 0.5, 1), DTypeError);
  EXPECT_THROW(nn::feature_dropout(ones({2, 3, 4}), 0.5, 4), ValueError);
  EXPECT_THROW(nn::alpha_dropout(ones({4}), 0.5, true, true), ShapeError);  // feature: >= 2-D
  EXPECT_THROW(nn::alpha_dropout(ones({4}, DType::int64), 0.5), DTypeError);
}

// Alpha dropout keeps a standard normal input's mean 0 and variance 1 (its purpose), and a
// dropped element becomes -alpha' a (1 - p), torch's formula.
TEST(AlphaDropout, KeepsMeanAndVarianceAndDropsToTheSaturation) {
  manual_seed(11);
  const double p = 0.2, alpha = 1.7580993408473766;
  const double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  const Tensor x = randn({400000}, DType::float64);
  const Tensor y = nn::AlphaDropout(p).forward(x);
  EXPECT_NEAR(mean(y).item<double>(), 0.0, 0.01);
  EXPECT_NEAR(hetero::std(y).item<double>(), 1.0, 0.01);
  const Tensor dropped_value = nn::alpha_dropout(zeros({1000}, DType::float64), p);
  int dropped = 0;
  for (const double v : dropped_value.to_vector<double>()) {
    const bool drop = std::abs(v - (-alpha * a * (1 - p))) < 1e-12;
    EXPECT_TRUE(drop || std::abs(v - alpha * a * p) < 1e-12) << v;
    dropped += drop;
  }
  EXPECT_GT(dropped, 150);  // 200 expected
  EXPECT_LT(dropped, 250);
  // Feature alpha dropout: one draw per channel.
  const std::vector<double> f =
      nn::FeatureAlphaDropout(0.5).forward(zeros({4, 8, 3}, DType::float64)).to_vector<double>();
  for (std::size_t c = 0; c < 32; ++c)
    for (std::size_t k = 1; k < 3; ++k) EXPECT_EQ(f[c * 3 + k], f[c * 3]);
  nn::AlphaDropout eval_drop(0.5);
  eval_drop.eval();
  EXPECT_TRUE(eval_drop.forward(x).is_same(x));
  // Identity returns its input.
  EXPECT_TRUE(nn::Identity().forward(x).is_same(x));
}
