// SPDX-License-Identifier: Apache-2.0
// The 3-d convolutions and pools (<hetero/conv3d.hpp>) and their layers (nn::Conv3d,
// ConvTranspose3d, the 3-d pools, BatchNorm3d): values printed by torch 1.13 for small integer
// inputs, conv3d against a sum of per-frame conv2d (a second formula), a C3D-like block's
// shapes and gradients, and the refusals. Random values and gradients against torch:
// tests/torch_conv (ops conv3d, conv_transpose3d, max_pool3d, avg_pool3d, adaptive_*_pool3d).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include <hetero/hetero.hpp>
#include <hetero/sdk/backend.hpp>
#include <hetero/sdk/find_backend.hpp>

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

// Where the backend has Backend::conv3d (the cpu plugin: float32 on oneDNN's native 3-d
// primitives; Note [3-d convolution kernels]), conv3d and its three gradients equal the
// composition from conv2d, run here in float64 on the same values (the backend composes
// float64), for random geometries: groups, strides, padding, dilation, unbatched inputs; and
// conv_transpose3d, which runs on the same kernels (its output is conv3d's input gradient).
TEST(Conv3d, KernelRouteMatchesTheComposition) {
  const auto cpu = find_backend("cpu");
  ASSERT_NE(cpu, nullptr);
  const bool kernels = cpu->supports(Conv3dOp::forward, DType::float32, 0);
  RecordProperty("conv3d_kernels", kernels ? "yes" : "no");
  EXPECT_FALSE(cpu->supports(Conv3dOp::forward, DType::float64, 0));  // composed
  manual_seed(31);
  std::uint64_t state = 7;
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(hi - lo + 1));
  };
  for (int round = 0; round < 24; ++round) {
    const std::int64_t groups = pick(1, 2), n = pick(1, 3), c = groups * pick(1, 3),
                       o = groups * pick(1, 3);
    const Size3 k{pick(1, 3), pick(1, 3), pick(1, 3)}, s{pick(1, 2), pick(1, 2), pick(1, 2)},
        p{pick(0, 1), pick(0, 1), pick(0, 1)}, dil{pick(1, 2), pick(1, 2), pick(1, 2)};
    const std::int64_t d = dil.d * (k.d - 1) + 1 + pick(0, 4),
                       h = dil.h * (k.h - 1) + 1 + pick(0, 4),
                       w = dil.w * (k.w - 1) + 1 + pick(0, 4);
    const bool batched = round % 5 != 4;
    const Shape xs = batched ? Shape{n, c, d, h, w} : Shape{c, d, h, w};
    const Tensor x64 = randn(xs, DType::float64),
                 w64 = randn({o, c / groups, k.d, k.h, k.w}, DType::float64),
                 b64 = randn({o}, DType::float64);
    // float32 operands and their exact float64 copies
    const Tensor x32 = x64.to(DType::float32), w32 = w64.to(DType::float32),
                 b32 = b64.to(DType::float32);
    // Odd rounds: conv_transpose3d of the same operands (its weight [C_in, C_out / groups,
    // ...] is conv3d's [O, C / groups, ...] read the other way: input channels o, output c),
    // on the kernels where each output_padding is below its stride (round % 3 != 0), else
    // composed (an output_padding at the stride, allowed below the dilation).
    const bool transposed = round % 2 == 1;
    const Size3 op{round % 3 != 0 ? 0 : std::min(s.d, dil.d) - 1, 0, 0};
    // Its input: conv3d's output shape, so that the output is conv3d's input shape (plus op).
    const auto out_size = [](std::int64_t in, std::int64_t k, std::int64_t st, std::int64_t pad,
                             std::int64_t di) {
      return (in + 2 * pad - di * (k - 1) - 1) / st + 1;
    };
    const std::int64_t od = out_size(d, k.d, s.d, p.d, dil.d),
                       oh = out_size(h, k.h, s.h, p.h, dil.h),
                       ow = out_size(w, k.w, s.w, p.w, dil.w);
    const Tensor xt64 =
        randn(batched ? Shape{n, o, od, oh, ow} : Shape{o, od, oh, ow}, DType::float64);
    const Tensor bt64 = randn({c}, DType::float64);
    auto run = [&](const Tensor& x0, const Tensor& wt, const Tensor& b0) {
      const Tensor x = transposed ? xt64.to(x0.dtype()) : x0;
      const Tensor b = transposed ? bt64.to(b0.dtype()) : b0;
      Tensor xi = x.detach().requires_grad_(true), wi = wt.detach().requires_grad_(true),
             bi = b.detach().requires_grad_(true);
      const Tensor y = transposed ? conv_transpose3d(xi, wi, bi, s, p, op, groups, dil)
                                  : conv3d(xi, wi, bi, s, p, dil, groups);
      y.backward(y.detach() * 0.5 + 0.25);
      return std::vector<Tensor>{y, xi.grad(), wi.grad(), bi.grad()};
    };
    const auto got = run(x32, w32, b32);
    const auto want = run(x32.to(DType::float64), w32.to(DType::float64), b32.to(DType::float64));
    const char* names[] = {"output", "input grad", "weight grad", "bias grad"};
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].shape(), want[i].shape()) << "round " << round << " " << names[i];
      EXPECT_EQ(got[i].dtype(), DType::float32);
      const double scale = std::max(1.0, max(abs(want[i])).item<double>());
      EXPECT_LE(max(abs(got[i].to(DType::float64) - want[i])).item<double>(), 2e-5 * scale)
          << "round " << round << (transposed ? " conv_transpose3d " : " conv3d ") << names[i];
    }
  }
}

// A dimension with one window reads the same taps under any stride (torch gives [1, 3, 1, 1,
// 1] here at any stride up to 2^63 - 1). Before, on float32's oneDNN kernels a stride from
// 2^31 on failed ("oneDNN has no primitive for this geometry"), and float64's composition
// padded the depth to a multiple of the stride (2^31: an allocation of 256 GiB refused).
TEST(Conv3d, AnyStrideOfADimensionWithOneWindow) {
  manual_seed(5);
  for (const DType t : {DType::float32, DType::float64}) {
    const Tensor x = randn({1, 2, 4, 4, 4}, t), w = randn({3, 2, 2, 2, 2}, t), b = randn({3}, t);
    // The one window's dot product: x's first 2^3 corner against each output channel's weight.
    const Tensor corner = x.narrow(2, 0, 2).narrow(3, 0, 2).narrow(4, 0, 2);
    const Tensor want = (corner * w).sum(std::vector<std::int64_t>{1, 2, 3, 4}) + b;
    for (const std::int64_t st :
         {std::int64_t{3}, std::int64_t{1000}, std::int64_t{1} << 31, std::int64_t{1} << 40,
          std::numeric_limits<std::int64_t>::max()}) {
      SCOPED_TRACE(testing::Message() << dtype_name(t) << ", stride " << st);
      Tensor xi = x.detach().requires_grad_(true);
      const Tensor y = conv3d(xi, w, b, st);
      ASSERT_EQ(y.shape(), (Shape{1, 3, 1, 1, 1}));
      EXPECT_LE(max(abs(y.reshape({3}) - want)).item<double>(), 1e-5);
      y.sum().backward();
      // Each input element of the corner gets the sum of its taps over the output channels.
      const Tensor g = xi.grad();
      EXPECT_LE(max(abs(g.narrow(2, 0, 2).narrow(3, 0, 2).narrow(4, 0, 2) - w.sum(0, true)))
                    .item<double>(),
                1e-5);
      // and every element outside the corner none
      for (const std::int64_t dim : {2, 3, 4})
        EXPECT_EQ(max(abs(g.narrow(dim, 2, 2))).item<double>(), 0.0) << "dimension " << dim;
      // Depth alone with one window: height and width keep stride 1 (3 windows each).
      const Tensor y2 = conv3d(x, w, b, Size3(st, 1, 1));
      ASSERT_EQ(y2.shape(), (Shape{1, 3, 1, 3, 3}));
      EXPECT_EQ(y2.to_vector<double>(), conv3d(x, w, b, Size3(3, 1, 1)).to_vector<double>());
    }
  }
}

// float16 and bfloat16 conv3d and conv_transpose3d accumulate in float32 and round once (as
// torch's 16-bit convolution): the output and the input's gradient are within one unit in
// the last place of the float64 result (composed in 16 bits they rounded each depth tap).
TEST(Conv3d, HalfPrecisionRoundsOnce) {
  manual_seed(8);
  for (DType t : {DType::float16, DType::bfloat16}) {
    const double eps = t == DType::float16 ? 0x1p-10 : 0x1p-7;  // one unit at [1, 2)
    // conv3d: 4 input channels, groups 2, 6 outputs; conv_transpose3d of a 6-channel input
    // by the same [6, 2, ...] weight: 4 outputs.
    const Tensor x = randn({3, 4, 5, 6, 5}).to(t), xt = randn({3, 6, 4, 3, 5}).to(t),
                 w = randn({6, 2, 3, 3, 2}).to(t), b = randn({6}).to(t);
    for (bool transposed : {false, true}) {
      auto run = [&](DType as) {
        const Tensor xi = (transposed ? xt : x).to(as).detach().requires_grad_(true);
        const Tensor y = transposed ? conv_transpose3d(xi, w.to(as), b.narrow(0, 0, 4).to(as),
                                                       {2, 1, 1}, {1, 0, 1}, {1, 0, 0}, 2)
                                    : conv3d(xi, w.to(as), b.to(as), {1, 2, 1}, {1, 1, 0}, 1, 2);
        y.backward(ones_like(y));
        return std::pair{y.detach(), xi.grad()};
      };
      const auto [y16, g16] = run(t);
      const auto [y64, g64] = run(DType::float64);
      for (const auto& [got, want, what] :
           {std::tuple{y16, y64, "output"}, std::tuple{g16, g64, "input gradient"}}) {
        const auto g = got.to(DType::float64).to_vector<double>();
        const auto v = want.to_vector<double>();
        double worst = 0;  // in units in the last place of each element (eps times its binade)
        for (std::size_t i = 0; i < v.size(); ++i) {
          int e = 0;
          // Below 0.01 the float32 sum's own error may reach a 16-bit ulp: one of 0.01's.
          (void)std::frexp(std::max(std::fabs(v[i]), 1e-2), &e);
          const double ulp = std::ldexp(eps, e - 1);
          worst = std::max(worst, std::fabs(g[i] - v[i]) / std::max(ulp, 1e-30));
        }
        EXPECT_LE(worst, 1.0) << dtype_name(t) << (transposed ? " conv_transpose3d " : " conv3d ")
                              << what << ": largest error in ulps";
      }
    }
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
  // No output channels (torch: "expected weight to be at least 1 at dimension 0"; "non-empty
  // 5D ... tensor expected for weight"); these gave empty results.
  EXPECT_THROW(conv3d(x, randn({0, 3, 1, 1, 1})), ShapeError);
  EXPECT_THROW(conv_transpose3d(x, randn({3, 0, 1, 1, 1})), ShapeError);
  // An empty batch with no frames: torch returns [0, 3, 1, 3, 9] here and [0, 1, 0, 6, 6]
  // (this raised "only zero batch or zero channel inputs are supported").
  EXPECT_EQ(conv_transpose3d(randn({0, 3, 0, 1, 7}), randn({3, 1, 2, 3, 3}), {}, {2, 3, 1}, 0, 0, 3,
                             {2, 1, 1})
                .shape(),
            (Shape{0, 3, 1, 3, 9}));
  EXPECT_EQ(conv_transpose3d(randn({0, 3, 0, 4, 4}), randn({3, 1, 1, 3, 3})).shape(),
            (Shape{0, 1, 0, 6, 6}));
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
