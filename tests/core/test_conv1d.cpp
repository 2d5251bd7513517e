// SPDX-License-Identifier: Apache-2.0
// The 1-d convolutions and pools (<hetero/conv1d.hpp>, nn::Conv1d and the 1-d pools): D2L
// 16.3's worked example, a textCNN's shapes, the layers' parameters, the rank errors. Values
// and gradients against torch: tests/torch_conv (ops conv1d, conv_transpose1d, max_pool1d,
// avg_pool1d, adaptive_avg_pool1d).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

// D2L 16.3.1: the 1-d cross-correlation of [0..6] with [1, 2] is [2, 5, 8, 11, 14, 17]; with
// three input channels and a [1, 3, 2] kernel, [2, 8, 14, 20, 26, 32].
TEST(Conv1d, D2LsWorkedExamples) {
  const Tensor x = arange(7).to(DType::float32).reshape({1, 1, 7});
  const Tensor k = tensor({1.0f, 2.0f}).reshape({1, 1, 2});
  EXPECT_EQ(conv1d(x, k).to_vector<float>(), (std::vector<float>{2, 5, 8, 11, 14, 17}));
  const Tensor x3 = (arange(7).reshape({1, 7}) + arange(3).reshape({3, 1}))
                        .to(DType::float32)
                        .reshape({1, 3, 7});  // rows [0..6], [1..7], [2..8]
  const Tensor k3 =
      tensor({{1.0, 2.0}, {3.0, 4.0}, {-1.0, -3.0}}).to(DType::float32).reshape({1, 3, 2});
  EXPECT_EQ(conv1d(x3, k3).to_vector<float>(), (std::vector<float>{2, 8, 14, 20, 26, 32}));
  EXPECT_EQ(max_pool1d(x, 2).to_vector<float>(), (std::vector<float>{1, 3, 5}));
  EXPECT_EQ(avg_pool1d(x, 3, 2, 1).to_vector<float>(),
            (std::vector<float>{1.0f / 3, 2, 4, 11.0f / 3}));
  EXPECT_EQ(adaptive_avg_pool1d(x, 1).to_vector<float>(), (std::vector<float>{3}));
  // Unbatched [C, L] stays unbatched.
  EXPECT_EQ(conv1d(x3[0], k3).shape(), (Shape{1, 6}));
}

// A textCNN's shapes (D2L 16.3.2): embeddings [N, L, E] permuted to [N, E, L], convolutions of
// widths 3, 4, 5, global average pooling over time, concatenated.
TEST(Conv1d, TextCnnShapesAndGradients) {
  const Tensor embedded = randn({4, 20, 8}).requires_grad_();
  std::vector<Tensor> pooled;
  nn::AdaptiveAvgPool1d pool(1);
  std::vector<std::shared_ptr<nn::Conv1d>> convs;
  for (const std::int64_t width : {3, 4, 5}) {
    convs.push_back(std::make_shared<nn::Conv1d>(8, 6, width));
    pooled.push_back(
        pool.forward(relu(convs.back()->forward(embedded.permute({0, 2, 1})))).squeeze(-1));
  }
  const Tensor features = cat(pooled, 1);
  EXPECT_EQ(features.shape(), (Shape{4, 18}));
  features.sum().backward();
  EXPECT_EQ(embedded.grad().shape(), embedded.shape());
  EXPECT_EQ(convs[0]->weight().grad().shape(), (Shape{6, 8, 3}));
  nn::Conv1d grouped(4, 6, 3, {.stride = 2, .padding = 1, .groups = 2});
  EXPECT_EQ(grouped.weight().shape(), (Shape{6, 2, 3}));
  EXPECT_LE(max(abs(grouped.weight())).item<float>(), 1 / std::sqrt(2.0f * 3));
  EXPECT_EQ(grouped.forward(randn({2, 4, 9})).shape(), (Shape{2, 6, 5}));
  EXPECT_EQ(nn::MaxPool1d(3, 1, 1).forward(randn({2, 4, 9})).shape(), (Shape{2, 4, 9}));
  EXPECT_EQ(nn::AvgPool1d(2).forward(randn({4, 9})).shape(), (Shape{4, 4}));
  EXPECT_EQ(conv_transpose1d(randn({2, 4, 5}), randn({4, 3, 3}), {}, 2, 0, 1).shape(),
            (Shape{2, 3, 12}));
}

TEST(Conv1d, RefusesWhatTorchRefuses) {
  const Tensor x = ones({2, 4, 10}), w = ones({6, 2, 3});
  EXPECT_THROW(conv1d(ones({10}), w), ShapeError);
  EXPECT_THROW(conv1d(ones({2, 4, 1, 10}), w), ShapeError);
  EXPECT_THROW(conv1d(x, ones({6, 2})), ShapeError);
  EXPECT_THROW(conv1d(x, w), ShapeError);  // groups 1: weight takes 2 channels, input has 4
  EXPECT_THROW(conv1d(x, w, {}, 0, 0, 1, 2), ValueError);
  EXPECT_THROW(max_pool1d(ones({10}), 3), ShapeError);
  EXPECT_THROW(max_pool1d(x, 3, std::nullopt, 2), ValueError);  // padding > kernel / 2
  EXPECT_THROW(avg_pool1d(ones({2, 4, 1, 10}), 3), ShapeError);
  EXPECT_THROW(adaptive_avg_pool1d(ones({10}), 2), ShapeError);
  EXPECT_THROW(conv_transpose1d(x, ones({4, 3})), ShapeError);
  EXPECT_THROW(nn::Conv1d(4, 6, 3, {.groups = 4}), ValueError);
  EXPECT_THROW(nn::Conv1d(4, 6, 0), ValueError);
}
