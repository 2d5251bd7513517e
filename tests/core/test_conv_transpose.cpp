// SPDX-License-Identifier: Apache-2.0
// conv_transpose2d and nn::ConvTranspose2d: D2L 14.10's worked examples, the adjoint identity
// with conv2d, the layer's parameters and output_size, the errors. Values and gradients
// against torch: tests/torch_conv (op conv_transpose2d).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

std::vector<double> f64(const Tensor& t) { return t.to(DType::float64).to_vector<double>(); }

}  // namespace

// D2L 14.10.1: X = [[0, 1], [2, 3]] and K = [[0, 1], [2, 3]].
TEST(ConvTranspose2d, D2LsWorkedExamples) {
  const Tensor x = tensor({{0.0, 1.0}, {2.0, 3.0}}).reshape({1, 1, 2, 2});
  const Tensor k = tensor({{0.0, 1.0}, {2.0, 3.0}}).reshape({1, 1, 2, 2});
  EXPECT_EQ(f64(conv_transpose2d(x, k)), (std::vector<double>{0, 0, 1, 0, 4, 6, 4, 12, 9}));
  EXPECT_EQ(f64(conv_transpose2d(x, k, {}, 1, 1)), (std::vector<double>{4}));
  EXPECT_EQ(f64(conv_transpose2d(x, k, {}, 2)),
            (std::vector<double>{0, 0, 0, 1, 0, 0, 2, 3, 0, 2, 0, 3, 4, 6, 6, 9}));
  // 14.10.3: a conv2d of stride 2 then the transposed one restore the shape.
  const Tensor big = randn({1, 10, 16, 16});
  nn::Conv2d conv(10, 20, 5, {.stride = 3, .padding = 2});
  nn::ConvTranspose2d tconv(20, 10, 5, {.stride = 3, .padding = 2});
  EXPECT_EQ(tconv.forward(conv.forward(big)).shape(), big.shape());
}

// The transposed convolution is conv2d's adjoint: <conv2d(x, w), y> = <x, conv_transpose2d(y,
// w)> for every geometry (float64, so exact to rounding).
TEST(ConvTranspose2d, IsTheAdjointOfConv2d) {
  const TensorOptions f64_opts = TensorOptions().dtype(DType::float64);
  struct Geometry {
    Size2 stride, padding, dilation;
    std::int64_t groups;
  };
  for (const Geometry& g : {Geometry{1, 0, 1, 1}, Geometry{{2, 3}, {1, 0}, 1, 1},
                            Geometry{2, 1, {2, 1}, 2}, Geometry{3, 2, 2, 3}}) {
    const Tensor x = randn({2, 6, 11, 9}, f64_opts), w = randn({6, 6 / g.groups, 3, 2}, f64_opts);
    const Tensor y0 = conv2d(x, w, {}, g.stride, g.padding, g.dilation, g.groups);
    const Tensor y = randn(y0.shape(), f64_opts);
    // The output_padding that gives back x's shape (the floor conv2d took).
    const std::int64_t oph =
        x.size(2) - ((y.size(2) - 1) * g.stride.h - 2 * g.padding.h + g.dilation.h * 2 + 1);
    const std::int64_t opw =
        x.size(3) - ((y.size(3) - 1) * g.stride.w - 2 * g.padding.w + g.dilation.w * 1 + 1);
    const Tensor xt =
        conv_transpose2d(y, w, {}, g.stride, g.padding, {oph, opw}, g.groups, g.dilation);
    ASSERT_EQ(xt.shape(), x.shape());
    const double lhs = (y0 * y).sum().item<double>(), rhs = (x * xt).sum().item<double>();
    EXPECT_NEAR(lhs, rhs, 1e-10 * (1 + std::abs(lhs))) << g.stride.h << " " << g.groups;
  }
}

TEST(ConvTranspose2d, LayerHasTorchsParametersAndOutputSize) {
  nn::ConvTranspose2d layer(4, 6, {3, 2}, {.stride = 2, .groups = 2});
  EXPECT_EQ(layer.weight().shape(), (Shape{4, 3, 3, 2}));
  EXPECT_EQ(layer.bias().shape(), (Shape{6}));
  const double bound = 1 / std::sqrt(3.0 * 3 * 2);  // fan_in = out / groups * KH * KW
  EXPECT_LE(max(abs(layer.weight())).item<float>(), bound);
  EXPECT_LE(max(abs(layer.bias())).item<float>(), bound);
  const Tensor x = randn({1, 4, 5, 5});
  EXPECT_EQ(layer.forward(x).shape(), (Shape{1, 6, 11, 10}));
  EXPECT_EQ(layer.forward(x, {12, 11}).shape(), (Shape{1, 6, 12, 11}));
  EXPECT_THROW(layer.forward(x, {13, 10}), ValueError);        // valid: 11-12 by 10-11
  EXPECT_EQ(layer.forward(x[0]).shape(), (Shape{6, 11, 10}));  // unbatched
  EXPECT_THROW(nn::ConvTranspose2d(4, 6, 3, {.groups = 4}), ValueError);
  EXPECT_THROW(nn::ConvTranspose2d(4, 6, 3, {.stride = 2, .output_padding = 2}), ValueError);
}

TEST(ConvTranspose2d, RefusesWhatTorchRefuses) {
  const Tensor x = ones({1, 4, 5, 5}), w = ones({4, 2, 3, 3});
  EXPECT_THROW(conv_transpose2d(x, ones({3, 2, 3, 3})), ShapeError);  // 4 channels, weight 3
  EXPECT_THROW(conv_transpose2d(x, w, {}, 1, 0, 0, 3), ValueError);   // 4 % 3
  EXPECT_THROW(conv_transpose2d(x, w, {}, 2, 0, 2), ValueError);      // output_padding >= 2
  EXPECT_THROW(conv_transpose2d(x, w, {}, 1, 5), ShapeError);         // output -3 x -3
  EXPECT_THROW(conv_transpose2d(x, w, {}, 0), ValueError);
  EXPECT_THROW(conv_transpose2d(x, w, {}, 1, -1), ValueError);
  EXPECT_THROW(conv_transpose2d(x, w, ones({3})), ShapeError);  // bias of C_out = 2
  EXPECT_THROW(conv_transpose2d(ones({5, 5}), w), ShapeError);
  EXPECT_THROW(conv_transpose2d(x, w.to(DType::float64)), DTypeError);
  EXPECT_THROW(conv_transpose2d(x.to(DType::int64), w.to(DType::int64)), DTypeError);
  // An output padding at or above the stride is allowed below the dilation, as torch.
  EXPECT_EQ(conv_transpose2d(x, w, {}, 1, 0, 1, 1, 2).shape(), (Shape{1, 2, 10, 10}));
  // An empty batch: an empty result, even of height 0 (as torch).
  EXPECT_EQ(
      conv_transpose2d(ones({0, 4, 1, 5}), ones({4, 1, 2, 2}), {}, {3, 2}, 1, 0, 1, {1, 2}).shape(),
      (Shape{0, 1, 0, 9}));
}

TEST(ConvTranspose2d, EmptyWeightsAndEmptyBatchesAsTorch) {
  // torch 1.13: F.conv_transpose2d(x, torch.ones(4, 0, 3, 3)): RuntimeError "non-empty 2D or 4D
  // weight tensor expected"; an input without channels, a weight [0, 2, 3, 3]: "Given
  // groups=1, expected weight to be at least 1 at dimension 0"; and groups=2 with a weight
  // of one row: "... at least 2 at dimension 0" (both hetero's ShapeError; these were
  // accepted, with an empty result).
  EXPECT_THROW(conv_transpose2d(ones({1, 4, 5, 5}), ones({4, 0, 3, 3})), ShapeError);
  EXPECT_THROW(conv_transpose2d(ones({0, 4, 5, 5}), ones({4, 0, 3, 3})), ShapeError);
  EXPECT_THROW(conv_transpose2d(ones({1, 0, 5, 5}), ones({0, 2, 3, 3})), ShapeError);
  EXPECT_THROW(conv_transpose2d(ones({1, 1, 5, 5}), ones({1, 2, 3, 3}), {}, 1, 0, 0, 2),
               ShapeError);
  EXPECT_THROW(conv_transpose1d(ones({1, 4, 5}), ones({4, 0, 3})), ShapeError);
  // An empty batch with no rows or columns: torch returns [0, 2, 2, 7] (the output size of
  // height (0 - 1) + (3 - 1) + 1), and [0, 2, 1, 13] with stride and dilation 2; this raised
  // "only zero batch or zero channel inputs are supported" (of a zero batch) or "Kernel size
  // can't be greater than actual input size". Gradients: zeros, as torch's.
  Tensor x = ones({0, 3, 0, 5}).requires_grad_(), w = ones({3, 2, 3, 3}).requires_grad_();
  Tensor b = ones({2}).requires_grad_();
  const Tensor y = conv_transpose2d(x, w, b);
  EXPECT_EQ(y.shape(), (Shape{0, 2, 2, 7}));
  y.sum().backward();
  EXPECT_EQ(w.grad().shape(), w.shape());
  EXPECT_EQ(w.grad().abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ(x.grad().shape(), x.shape());
  EXPECT_EQ(conv_transpose2d(ones({0, 3, 0, 5}), ones({3, 2, 2, 3}), {}, 2, 0, 0, 1, 2).shape(),
            (Shape{0, 2, 1, 13}));
  EXPECT_EQ(conv_transpose1d(ones({0, 3, 0}), ones({3, 2, 3})).shape(), (Shape{0, 2, 2}));
  // A batch of one still raises (torch: "Only zero batch or zero channel inputs are supported").
  EXPECT_THROW(conv_transpose2d(ones({2, 3, 0, 5}), ones({3, 2, 3, 3})), ShapeError);
}
