// SPDX-License-Identifier: Apache-2.0
// The 3-d convolutions and pools (<hetero/conv3d.hpp>) and their layers (nn::Conv3d,
// ConvTranspose3d, the 3-d pools, BatchNorm3d): values printed by torch 1.13 for small integer
// inputs, conv3d against a sum of per-frame conv2d (a second formula), a C3D-like block's
// shapes and gradients, and the refusals. Random values and gradients against torch:
// tests/torch_conv (ops conv3d, conv_transpose3d, max_pool3d, avg_pool3d, adaptive_*_pool3d).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

// torch.arange(96) % 7 - 3 as [1, 2, 3, 4, 4] float32.
Tensor sample() {
  std::vector<float> v(96);
  for (int i = 0; i < 96; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i % 7 - 3);
  return from_vector(v, {1, 2, 3, 4, 4});
}

// torch.arange(n) % m - off as `shape`.
Tensor pattern(const Shape& shape, int m, int off) {
  std::int64_t n = 1;
  for (const std::int64_t s : shape) n *= s;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<float>(i % m - off);
  return from_vector(v, shape);
}

std::vector<float> first(const Tensor& t, std::size_t k) {
  std::vector<float> v = t.contiguous().to_vector<float>();
  v.resize(k);
  return v;
}

}  // namespace

TEST(Conv3d, ValuesAsTorch) {
  const Tensor x = sample();
  // F.conv3d(x, w, [1, -1], stride=(1, 2, 1), padding=(1, 0, 1), dilation=(2, 1, 1), groups=2)
  const Tensor y = conv3d(x, pattern({2, 1, 2, 2, 2}, 5, 2), tensor({1.0f, -1.0f}), {1, 2, 1},
                          {1, 0, 1}, {2, 1, 1}, 2);
  EXPECT_EQ(y.shape(), (Shape{1, 2, 3, 2, 5}));
  EXPECT_EQ(y.sum().item<float>(), -33.0f);
  EXPECT_EQ(first(y, 12), (std::vector<float>{3, -4, 2, 1, 6, 1, 2, 1, 0, 7, 3, 11}));
  // F.conv_transpose3d(x, wt, stride=(2, 1, 2), padding=(1, 0, 0), output_padding=(1, 0, 1),
  // dilation=(1, 2, 1))
  const Tensor z = conv_transpose3d(x, pattern({2, 2, 2, 2, 2}, 3, 1), {}, {2, 1, 2}, {1, 0, 0},
                                    {1, 0, 1}, 1, {1, 2, 1});
  EXPECT_EQ(z.shape(), (Shape{1, 2, 5, 6, 9}));
  EXPECT_EQ(z.sum().item<float>(), 3.0f);
  EXPECT_EQ((z * z).sum().item<float>(), 1959.0f);
  EXPECT_EQ(first(z, 12), (std::vector<float>{3, -6, -3, 1, -2, 1, -1, 1, 0, 0, 1, 1}));
}

// Output frame t of conv3d is the sum over the depth taps kd of conv2d of input frame
// t sd + kd dd - pd (zeros outside) with the weight's tap kd: a second formula.
TEST(Conv3d, IsTheSumOfPerFrameConv2d) {
  const Tensor x = randn({2, 4, 7, 5, 6}, DType::float64);
  const Tensor w = randn({6, 2, 3, 2, 3}, DType::float64);
  const std::int64_t sd = 2, pd = 2, dd = 2, groups = 2;
  const Tensor y = conv3d(x, w, {}, {sd, 1, 2}, {pd, 1, 0}, {dd, 2, 1}, groups);
  const std::int64_t od = (7 + 2 * pd - dd * 2 - 1) / sd + 1;
  ASSERT_EQ(y.size(2), od);
  for (std::int64_t t = 0; t < od; ++t) {
    Tensor want;
    for (std::int64_t kd = 0; kd < 3; ++kd) {
      const std::int64_t frame = t * sd + kd * dd - pd;
      if (frame < 0 || frame >= 7) continue;
      const Tensor term = conv2d(x.narrow(2, frame, 1).squeeze(2), w.narrow(2, kd, 1).squeeze(2),
                                 {}, {1, 2}, {1, 0}, {2, 1}, groups);
      want = want.defined() ? want + term : term;
    }
    EXPECT_LE(max(abs(y.narrow(2, t, 1).squeeze(2) - want)).item<double>(), 1e-12) << "frame " << t;
  }
}

TEST(Pool3d, ValuesAsTorch) {
  const Tensor x = sample();
  // F.max_pool3d(x, (2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0), ceil_mode=True)
  const Tensor m = max_pool3d(x, {2, 3, 2}, Size3{1, 2, 2}, {1, 1, 0}, 1, true);
  EXPECT_EQ(m.shape(), (Shape{1, 2, 4, 3, 2}));
  EXPECT_EQ(m.to_vector<float>(),
            (std::vector<float>{2, 3, 3, 3, 3, -2, 3, 3, 3, 3, 3, 0, 3, 3, 3,  3,
                                0, 2, 2, 3, 3, 2,  0, 2, 3, 3, 2, 3, 2, 3, 3,  3,
                                3, 3, 3, 3, 3, 3,  3, 3, 3, 1, 1, 3, 2, 3, -1, 1}));
  // F.avg_pool3d(x, (2, 2, 3), stride=(2, 1, 2), padding=(1, 1, 1), ceil_mode=True,
  // count_include_pad=False) * 36
  const Tensor a = avg_pool3d(x, {2, 2, 3}, Size3{2, 1, 2}, {1, 1, 1}, true, false) * 36;
  EXPECT_EQ(a.shape(), (Shape{1, 2, 2, 5, 3}));
  const std::vector<float> want_a{-90, -36, 0,   -18, -6, -54, 0,    12, -36, 18,   -12, -18,
                                  90,  -24, -72, 18,  30, -18, -4.5, -3, -9,  13.5, -6,  9};
  const std::vector<float> got_a = first(a, want_a.size());
  for (std::size_t i = 0; i < want_a.size(); ++i) EXPECT_NEAR(got_a[i], want_a[i], 1e-4) << i;
  // F.adaptive_avg_pool3d(x, (2, 3, 3)) * 8 and F.adaptive_max_pool3d(x, (2, 3, 3))
  const std::vector<float> want_aa{-3, -2, -1, 1, 2, 3, -2, -1, 0, -1, 0, 1, 3, -3, -2, 0, 1, 2};
  const std::vector<float> got_aa = first(adaptive_avg_pool3d(x, {2, 3, 3}) * 8, 18);
  for (std::size_t i = 0; i < 18; ++i) EXPECT_NEAR(got_aa[i], want_aa[i], 1e-5) << i;
  EXPECT_EQ(first(adaptive_max_pool3d(x, {2, 3, 3}), 18), std::vector<float>(18, 3.0f));
  // Output size 0: empty, still differentiable (zeros).
  const Tensor xg = sample().requires_grad_();
  const Tensor e = adaptive_avg_pool3d(xg, {0, 2, 2});
  EXPECT_EQ(e.shape(), (Shape{1, 2, 0, 2, 2}));
  e.sum().backward();
  EXPECT_EQ(xg.grad().abs().sum().item<float>(), 0.0f);
}

// The gradient of max_pool3d goes to the first maximal element of each window in (d, h, w)
// order, as torch's cpu kernel: all-equal windows send it to their first element.
TEST(Pool3d, MaxGradientGoesToTheFirstMaximum) {
  const Tensor x = ones({1, 1, 2, 2, 2}).requires_grad_();
  max_pool3d(x, 2).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0}));
  const Tensor y = tensor({0.0f, 5.0f, 1.0f, 2.0f, 5.0f, 0.0f, 5.0f, 1.0f})
                       .view({1, 1, 2, 2, 2})
                       .requires_grad_();
  adaptive_max_pool3d(y, {1, 1, 1}).sum().backward();
  EXPECT_EQ(y.grad().to_vector<float>(), (std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0}));
}

// A C3D-style block (Tran et al. 2015): 3x3x3 convolutions, BatchNorm3d, ReLU, a 1x2x2 pool
// that keeps the frames, then a 2x2x2 one, a global average, a linear head; and a 3-D U-Net's
// 2x2x2 stride-2 up-convolution, which doubles every dimension.
TEST(Conv3dLayers, C3dBlockShapesAndGradients) {
  nn::Conv3d conv1(3, 8, 3, {.padding = 1});
  nn::BatchNorm3d bn(8);
  nn::MaxPool3d pool1({1, 2, 2});
  nn::Conv3d conv2(8, 16, 3, {.padding = 1, .groups = 2});
  nn::MaxPool3d pool2(2);
  nn::AdaptiveAvgPool3d gap(1);
  nn::Linear fc(16, 5);
  EXPECT_EQ(conv1.weight().shape(), (Shape{8, 3, 3, 3, 3}));
  EXPECT_LE(max(abs(conv1.weight())).item<float>(), 1 / std::sqrt(3.0f * 27));
  EXPECT_EQ(conv2.weight().shape(), (Shape{16, 4, 3, 3, 3}));
  const Tensor clip = randn({2, 3, 8, 16, 16}).requires_grad_();
  Tensor h = pool1.forward(relu(bn.forward(conv1.forward(clip))));
  EXPECT_EQ(h.shape(), (Shape{2, 8, 8, 8, 8}));
  h = pool2.forward(relu(conv2.forward(h)));
  EXPECT_EQ(h.shape(), (Shape{2, 16, 4, 4, 4}));
  const Tensor logits = fc.forward(gap.forward(h).flatten(1));
  EXPECT_EQ(logits.shape(), (Shape{2, 5}));
  logits.sum().backward();
  EXPECT_EQ(clip.grad().shape(), clip.shape());
  EXPECT_EQ(conv1.weight().grad().shape(), conv1.weight().shape());
  EXPECT_EQ(bn.weight().grad().shape(), (Shape{8}));
  EXPECT_EQ(bn.buffer("num_batches_tracked").item<std::int64_t>(), 1);
  nn::ConvTranspose3d up(16, 8, 2, {.stride = 2});
  EXPECT_EQ(up.weight().shape(), (Shape{16, 8, 2, 2, 2}));
  EXPECT_EQ(up.forward(h).shape(), (Shape{2, 8, 8, 8, 8}));
  EXPECT_EQ(up.forward(h[0]).shape(), (Shape{8, 8, 8, 8}));  // unbatched
  EXPECT_EQ(nn::AvgPool3d(2, {.stride = Size3{1, 2, 2}}).forward(h).shape(),
            (Shape{2, 16, 3, 2, 2}));
  EXPECT_EQ(nn::AdaptiveMaxPool3d({1, 2, 3}).forward(h).shape(), (Shape{2, 16, 1, 2, 3}));
}

TEST(Conv3d, RefusesWhatTorchRefuses) {
  const Tensor x = randn({2, 3, 4, 5, 6});
  const Tensor w = randn({2, 3, 1, 1, 1});
  EXPECT_THROW(conv3d(randn({3, 4, 5}), w), ShapeError);
  EXPECT_THROW(conv3d(x, randn({2, 3, 1, 1})), ShapeError);
  EXPECT_THROW(conv3d(x, randn({2, 3, 5, 1, 1})), ShapeError);  // kernel beyond the frames
  EXPECT_THROW(conv3d(x, randn({2, 2, 1, 1, 1})), ShapeError);  // channels
  EXPECT_THROW(conv3d(x, w, randn({3})), ShapeError);           // bias
  EXPECT_THROW(conv3d(x, w, {}, {0, 1, 1}), ValueError);
  EXPECT_THROW(conv3d(x, w, {}, 1, {-1, 0, 0}), ValueError);
  EXPECT_THROW(conv3d(x, w, {}, 1, 0, {1, 0, 1}), ValueError);
  EXPECT_THROW(conv3d(x, w, {}, 1, 0, 1, 2), ShapeError);  // 3 channels, groups 2
  EXPECT_THROW(conv3d(x.to(DType::int32), w.to(DType::int32)), DTypeError);
  EXPECT_THROW(conv3d(x, w.to(DType::float64)), DTypeError);
  EXPECT_EQ(conv3d(randn({0, 3, 4, 5, 6}), w).shape(), (Shape{0, 2, 4, 5, 6}));
  const Tensor wt = randn({3, 2, 1, 1, 1});
  EXPECT_THROW(conv_transpose3d(x, wt, {}, 1, 0, {1, 0, 0}), ValueError);  // >= stride, dilation
  EXPECT_EQ(conv_transpose3d(x, wt, {}, 2, 0, 1).shape(), (Shape{2, 2, 8, 10, 12}));
  EXPECT_THROW(conv_transpose3d(x, wt, {}, 1, 3), ShapeError);  // output too small
  EXPECT_THROW(conv_transpose3d(x, randn({2, 2, 1, 1, 1})), ShapeError);
  EXPECT_THROW(nn::Conv3d(3, 4, {3, 0, 3}), ValueError);
  EXPECT_THROW(nn::Conv3d(3, 4, 3, {.groups = 2}), ValueError);
  EXPECT_THROW(nn::ConvTranspose3d(4, 4, 3, {.output_padding = 1}), ValueError);
  nn::BatchNorm3d bn(3);
  EXPECT_THROW(bn.forward(randn({2, 3, 4, 5})), ShapeError);
  EXPECT_THROW(bn.forward(randn({1, 3, 1, 1, 1})), ValueError);  // one value per channel
}

TEST(Pool3d, RefusesWhatTorchRefuses) {
  const Tensor x = randn({2, 3, 4, 5, 6});
  EXPECT_THROW(max_pool3d(x, 2, {}, 2), ValueError);  // pad beyond half the kernel
  EXPECT_THROW(max_pool3d(x, 5), ShapeError);         // output too small
  EXPECT_THROW(max_pool3d(randn({3, 4, 5}), 2), ShapeError);
  EXPECT_THROW(max_pool3d(x, 2, Size3{0, 1, 1}), ValueError);
  EXPECT_THROW(max_pool3d(x, 0), ValueError);
  EXPECT_THROW(max_pool3d(x, 2, {}, 0, 0), ValueError);
  EXPECT_THROW(max_pool3d(randn({2, 0, 4, 4, 4}), 2), ShapeError);
  EXPECT_THROW(max_pool3d(randn({2, 2, 0, 4, 4}), 2), ShapeError);
  EXPECT_EQ(max_pool3d(randn({0, 2, 4, 4, 4}), 2).shape(), (Shape{0, 2, 2, 2, 2}));
  EXPECT_THROW(max_pool3d(x.to(DType::int32), 2), NotImplementedError);
  EXPECT_THROW(avg_pool3d(x, 5), ShapeError);
  // torch's avg_pool3d alone: H 1 < kH 2 although the padded H is 3
  EXPECT_THROW(avg_pool3d(randn({1, 1, 5, 1, 2}), {1, 2, 2}, Size3{3, 1, 2}, {0, 1, 0}),
               ShapeError);
  EXPECT_EQ(max_pool3d(randn({1, 1, 5, 1, 2}), {1, 2, 2}, Size3{3, 1, 2}, {0, 1, 0}).shape(),
            (Shape{1, 1, 2, 2, 1}));
  EXPECT_THROW(avg_pool3d(x, 2, {}, 0, false, true, 0), ValueError);
  EXPECT_THROW(avg_pool3d(x.to(DType::int64), 2), NotImplementedError);
  EXPECT_THROW(adaptive_avg_pool3d(randn({3, 4, 5}), 2), ShapeError);
  EXPECT_THROW(adaptive_avg_pool3d(x, -1), ValueError);
  EXPECT_THROW(adaptive_max_pool3d(x, {1, -1, 1}), ValueError);
  EXPECT_THROW(adaptive_avg_pool3d(randn({2, 2, 0, 4, 4}), 2), ShapeError);
  EXPECT_EQ(adaptive_max_pool3d(x, 0).shape(), (Shape{2, 3, 0, 0, 0}));
  EXPECT_EQ(adaptive_max_pool3d(randn({0, 2, 4, 4, 4}), 2).shape(), (Shape{0, 2, 2, 2, 2}));
  // 16-bit averages are computed in float32 and rounded once.
  const Tensor h = x.to(DType::bfloat16);
  EXPECT_EQ(avg_pool3d(h, 2).to_vector<float>(),
            avg_pool3d(h.to(DType::float32), 2).to(DType::bfloat16).to_vector<float>());
}
