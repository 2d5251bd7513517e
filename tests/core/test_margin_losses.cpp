// SPDX-License-Identifier: Apache-2.0
// vector_norm, normalize, pairwise_distance (<hetero/norms.hpp>, <hetero/distance.hpp>) and the
// margin, ranking and likelihood losses (nn/margin_loss.hpp, nn/likelihood_loss.hpp): values
// and gradients torch 1.13 printed at the edges (zero vectors, clamped variances, ties), and
// the refusals. Random values and gradients against torch: tests/torch_layers (kind
// distance_loss).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {
const double kInf = std::numeric_limits<double>::infinity();

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << "element " << i;
}
}  // namespace

TEST(VectorNorm, OrdersAndGradientsAsTorch) {
  const Tensor x = tensor({{3.0, -4.0, 0.0}, {0.0, 0.0, 0.0}}).to(DType::float64);
  EXPECT_EQ(vector_norm(x, 2, {1}).to_vector<double>(), (std::vector<double>{5, 0}));
  EXPECT_EQ(vector_norm(x, kInf, {1}).to_vector<double>(), (std::vector<double>{4, 0}));
  EXPECT_EQ(vector_norm(x, -kInf, {-1}).to_vector<double>(), (std::vector<double>{0, 0}));
  EXPECT_EQ(vector_norm(x, 0, {1}).to_vector<double>(), (std::vector<double>{2, 0}));
  EXPECT_EQ(vector_norm(x, -1, {1}).to_vector<double>(), (std::vector<double>{0, 0}));
  EXPECT_EQ(vector_norm(x).item<double>(), 5.0);  // every element
  EXPECT_EQ(vector_norm(x, 2, {0, 1}, true).shape(), (Shape{1, 1}));
  EXPECT_EQ(norm(x, 1, 1).to_vector<double>(), (std::vector<double>{7, 0}));
  EXPECT_EQ(vector_norm(x.to(DType::float16), 2, {1}).dtype(), DType::float16);
  EXPECT_EQ(vector_norm(zeros({0, 3}), 2, {0}).to_vector<float>(), (std::vector<float>{0, 0, 0}));
  // torch's gradients: x / norm (0 at a zero norm), sign for 1, shared ties for inf, the
  // formula with zeros masked for fractional and negative orders.
  const std::vector<std::pair<double, std::vector<double>>> want{
      {2.0, {0.6, -0.8, 0, 0, 0, 0}},
      {1.0, {1, -1, 0, 0, 0, 0}},
      {kInf, {0, -1, 0, 0, 0, 0}},
      {0.5, {2.154700538379252, -1.8660254037844386, 0, 0, 0, 0}},
      {3.0, {0.4448513517305356, -0.7908468475209521, 0, 0, 0, 0}},
      {-1.0, {0, 0, 0, 0, 0, 0}}};
  for (const auto& [ord, grad] : want) {
    const Tensor v = x.clone().requires_grad_();
    vector_norm(v, ord, {1}).sum().backward();
    expect_near(v.grad().to_vector<double>(), grad, 1e-12);
  }
  const Tensor ties = tensor({{1.0, -1.0, 1.0}}).to(DType::float64).requires_grad_();
  vector_norm(ties, kInf, {1}).sum().backward();
  expect_near(ties.grad().to_vector<double>(), {1.0 / 3, -1.0 / 3, 1.0 / 3}, 1e-15);
}

TEST(VectorNorm, RefusesWhatTorchRefuses) {
  EXPECT_THROW(vector_norm(tensor({1, 2})), DTypeError);
  EXPECT_THROW(vector_norm(zeros({2, 3}), 2, {0, 0}), ValueError);
  EXPECT_THROW(vector_norm(zeros({2, 3}), 2, {2}), IndexError);
  EXPECT_THROW(vector_norm(zeros({0, 3}), kInf, {0}), ValueError);  // no identity
  EXPECT_THROW(vector_norm(zeros({0, 3}), -1, {0}), ValueError);
  EXPECT_EQ(vector_norm(zeros({0, 3}), kInf, {1}).shape(), (Shape{0}));
  EXPECT_THROW(normalize(tensor({1, 2}), 2, 0), DTypeError);
}

TEST(Normalize, ZeroVectorsAndPairwiseDistanceAsTorch) {
  const Tensor x = tensor({{1.0, 2.0, 3.0}, {0.0, 0.0, 0.0}}).to(DType::float64).requires_grad_();
  const Tensor y = normalize(x);
  expect_near(y.to_vector<double>(),
              {0.2672612419124244, 0.5345224838248488, 0.8017837257372732, 0, 0, 0}, 1e-15);
  y.sum().backward();
  expect_near(x.grad().to_vector<double>(),
              {0.1527207096642425, 0.03818017741606061, -0.07636035483212128, 1e12, 1e12, 1e12},
              1e-12);
  // [N, D] against [D]; integers become float32 through the eps, as torch
  const Tensor d = pairwise_distance(tensor({{0.0f, 0.0f}, {3.0f, 4.0f}}), tensor({0.0f, 0.0f}));
  expect_near(d.to(DType::float64).to_vector<double>(), {1.4142135e-06, 5.0000014}, 1e-6);
  EXPECT_EQ(pairwise_distance(tensor({1, 2}), tensor({1, 2})).dtype(), DType::float32);
  EXPECT_EQ(nn::PairwiseDistance(2, 1e-6, true)(ones({3, 2}), ones({3, 2})).shape(), (Shape{3, 1}));
}

TEST(MarginLosses, ValuesAsTorch) {
  // Hinge: input where the target is 1, max(0, margin - input) where it is -1.
  const Tensor x = tensor({0.5, 2.0, -1.0}).to(DType::float64);
  EXPECT_DOUBLE_EQ(nn::HingeEmbeddingLoss()(x, tensor({1.0, -1.0, -1.0})).item<double>(), 2.5 / 3);
  // MultiMargin p 2, margin 0.5, class weights: torch's loss and gradient.
  const Tensor s = tensor({{0.1f, 0.2f, 0.4f, 0.3f}}).requires_grad_();
  const Tensor l =
      nn::MultiMarginLoss({.p = 2, .margin = 0.5, .weight = tensor({1.f, 2.f, 3.f, 4.f})})(
          s, tensor(std::vector<std::int64_t>{3}));
  EXPECT_NEAR(l.item<float>(), 0.61f, 1e-6);
  l.backward();
  expect_near(s.grad().to(DType::float64).to_vector<double>(), {0.6, 0.8, 1.2, -2.6}, 1e-6);
  // Triplet with swap: d(a, p) 5, d(a, n) 1, d(p, n) 4.47 -> 1 + 5 - 1.
  EXPECT_FLOAT_EQ(nn::TripletMarginLoss({.eps = 0, .swap = true})(
                      tensor({{0.f, 0.f}}), tensor({{3.f, 4.f}}), tensor({{1.f, 0.f}}))
                      .item<float>(),
                  5.0f);
  // Cosine embedding: 1 - cos for target 1, max(0, cos - margin) for -1.
  const Tensor c = nn::CosineEmbeddingLoss(0.5, nn::Reduction::none)(
      tensor({{1.f, 0.f}, {1.f, 1.f}}), tensor({{0.f, 1.f}, {1.f, 1.f}}), tensor({1.f, -1.f}));
  expect_near(c.to(DType::float64).to_vector<double>(), {1.0, 0.5}, 1e-6);
  // Gaussian NLL: a variance below eps is clamped, its gradient passing as if it were not.
  const Tensor v = tensor({1e-9, 2.0}).to(DType::float64).requires_grad_();
  const Tensor g = nn::GaussianNLLLoss({.reduction = nn::Reduction::sum})(
      tensor({1.0, 1.0}).to(DType::float64), tensor({0.0, 0.0}).to(DType::float64), v);
  EXPECT_NEAR(g.item<double>(), 499993.6888183113, 1e-6);
  g.backward();
  expect_near(v.grad().to_vector<double>(), {-499999500000.0, 0.125}, 1e-12);
}

// MultiLabelMarginLoss: torch 1.13's printed values and gradient, the list ended by -1, a
// repeated target counted twice, and its refusals.
TEST(MarginLosses, MultiLabelMarginAsTorch) {
  const Tensor x = tensor({{0.1f, 0.2f, 0.4f, 0.8f}, {0.3f, -0.2f, 0.5f, 0.1f}}).requires_grad_();
  const Tensor y = tensor(std::vector<std::int64_t>{3, 0, -1, 1, 1, 2, 3, -1}).reshape({2, 4});
  expect_near(
      nn::MultiLabelMarginLoss(nn::Reduction::none)(x, y).to(DType::float64).to_vector<double>(),
      {0.85, 0.875}, 1e-6);
  EXPECT_NEAR(nn::MultiLabelMarginLoss()(x, y).item<float>(), 0.8625f, 1e-6);
  nn::MultiLabelMarginLoss(nn::Reduction::sum)(x, y).backward();
  expect_near(x.grad().to(DType::float64).to_vector<double>(),
              {-0.5, 0.5, 0.5, -0.5, 0.75, -0.25, -0.25, -0.25}, 1e-6);
  const Tensor rep = tensor(std::vector<std::int64_t>{3, 3, -1, 1, 1, 2, 3, -1}).reshape({2, 4});
  EXPECT_NEAR(nn::MultiLabelMarginLoss(nn::Reduction::none)(x, rep).to_vector<float>()[0], 0.65f,
              1e-6);
  EXPECT_EQ(nn::MultiLabelMarginLoss(nn::Reduction::none)(x, full({2, 4}, -1.0).to(DType::int64))
                .to_vector<float>(),
            (std::vector<float>{0, 0}));  // no targets
  EXPECT_EQ(nn::MultiLabelMarginLoss(nn::Reduction::none)(x[0], y[0]).dim(), 0);
  EXPECT_THROW(nn::MultiLabelMarginLoss()(x, y + 1), IndexError);  // 4 is out of range
  EXPECT_THROW(nn::MultiLabelMarginLoss()(x, y - 1), IndexError);  // -2
  EXPECT_THROW(nn::MultiLabelMarginLoss()(x, y.narrow(1, 0, 3)), ShapeError);
  EXPECT_THROW(nn::MultiLabelMarginLoss()(x, y.to(DType::int32)), DTypeError);
  EXPECT_THROW(nn::MultiLabelMarginLoss()(x.reshape({1, 2, 4}), y.reshape({1, 2, 4})), ShapeError);
  EXPECT_THROW(nn::MultiLabelMarginLoss()(zeros({2, 0}), zeros({2, 0}).to(DType::int64)),
               ShapeError);
}

TEST(MarginLosses, RefusesWhatTorchRefuses) {
  const Tensor x = randn({3, 4});
  const Tensor t = tensor(std::vector<std::int64_t>{0, 3, 1});
  EXPECT_THROW(nn::MultiMarginLoss({.p = 3}), ValueError);
  EXPECT_THROW(nn::MultiMarginLoss()(x, t.to(DType::float32)), DTypeError);
  EXPECT_THROW(nn::MultiMarginLoss()(x, tensor(std::vector<std::int64_t>{0, 4, 1})), IndexError);
  EXPECT_THROW(nn::MultiMarginLoss()(x, tensor(std::vector<std::int64_t>{0, 1})), ShapeError);
  // torch: "expected scalar type Float but found Double" for a weight of another dtype
  EXPECT_THROW(nn::MultiMarginLoss({.weight = ones({4}, TensorOptions().dtype(DType::float64))})(
                   x, tensor(std::vector<std::int64_t>{0, 1, 2})),
               DTypeError);
  EXPECT_THROW(nn::MultiMarginLoss()(randn({2, 3, 4}), t), ShapeError);
  EXPECT_THROW(nn::MarginRankingLoss()(x, randn({3}), randn({3})), ShapeError);
  EXPECT_THROW(nn::CosineEmbeddingLoss()(x, x, ones({3, 1})), ShapeError);
  EXPECT_THROW(nn::CosineEmbeddingLoss()(x[0], x, ones({3})), ShapeError);
  EXPECT_THROW(nn::TripletMarginLoss()(x, x[0], x), ShapeError);
  EXPECT_THROW(nn::GaussianNLLLoss()(x, x, ones({4})), ValueError);  // var of incorrect size
  EXPECT_THROW(nn::GaussianNLLLoss()(x, x, -ones({3, 4})), ValueError);
  EXPECT_EQ(nn::GaussianNLLLoss({.reduction = nn::Reduction::none})(x, x, ones({3})).shape(),
            (Shape{3, 4}));  // one variance per sample
  EXPECT_THROW(nn::HingeEmbeddingLoss()(tensor({1, 2}), tensor({1, -1})), DTypeError);
  EXPECT_THROW(nn::SoftMarginLoss()(x, ones({5})), ShapeError);
  EXPECT_THROW(nn::MultiLabelSoftMarginLoss(ones({2, 2})), ShapeError);
  EXPECT_THROW(nn::TripletMarginLoss().forward(x), Error);  // three tensors
  EXPECT_TRUE(std::isnan(nn::HingeEmbeddingLoss()(zeros({0}), zeros({0})).item<float>()));
}

// torch 1.13 takes a 0-d input to MultiMarginLoss as one sample of one class (loss 0, its
// gradient 0; `none` has the target's shape), where hetero said "Expected non-empty vector
// or matrix"; and SoftMarginLoss writes into a tensor of the input's shape, so a target that
// widens the input is refused (hetero summed the widened [3, 4] losses).
TEST(MarginLosses, EdgeShapesAsTorch) {
  const Tensor x = full({}, 0.5).requires_grad_();
  const Tensor zero_class = full({}, 0.0).to(DType::int64);
  const Tensor l = nn::MultiMarginLoss()(x, zero_class);
  EXPECT_EQ(l.dim(), 0);
  EXPECT_EQ(l.item<float>(), 0.0f);
  l.backward();
  EXPECT_EQ(x.grad().item<float>(), 0.0f);
  EXPECT_EQ(nn::MultiMarginLoss({.reduction = nn::Reduction::none})(x, zero_class).shape(),
            Shape{});
  EXPECT_EQ(
      nn::MultiMarginLoss({.reduction = nn::Reduction::none})(x, zero_class.reshape({1})).shape(),
      Shape{1});
  EXPECT_THROW(nn::MultiMarginLoss()(x, full({}, 1.0).to(DType::int64)), IndexError);  // C = 1
  EXPECT_THROW(nn::MultiMarginLoss()(x, zeros({2}, DType::int64)), ShapeError);

  const Tensor col = tensor({{0.5f}, {-1.0f}, {2.0f}});                     // [3, 1]
  EXPECT_THROW(nn::SoftMarginLoss()(col, ones({4})), ShapeError);           // [3, 4]
  EXPECT_THROW(nn::SoftMarginLoss()(ones({3}), ones({3, 1})), ShapeError);  // [3, 3]
  // A target that broadcasts to the input's shape is fine: log(1 + e^-x) of each row.
  EXPECT_NEAR(nn::SoftMarginLoss(nn::Reduction::sum)(col, ones({1})).item<float>(),
              std::log1p(std::exp(-0.5)) + std::log1p(std::exp(1.0)) + std::log1p(std::exp(-2.0)),
              1e-6);
}
