// SPDX-License-Identifier: Apache-2.0
// conv2d, max_pool2d, avg_pool2d and adaptive_avg_pool2d of the core (Note [Convolution as
// GEMM]: composed from the backend's strided copy, GEMM, reductions and element-wise
// kernels, or the backend's own Backend::conv2d where it has one) on the backend under test,
// against direct loops in double: outputs and the gradients of input, weight and bias, for strides,
// padding, dilation, groups, ceil_mode and count_include_pad, in float32, float64, float16 and
// bfloat16 (whose sums are float32's, rounded once, as torch's). Tolerance: 1e-4 (float32),
// 1e-10 (float64), one unit in the last place (16-bit: epsilon()) relative to 1 + |want|.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>
#include <hetero/conformance/tensor_upload.hpp>
#include <hetero/hetero.hpp>

#include "sum_tolerance.hpp"

namespace hetero::conformance {
namespace {

using Vec = std::vector<double>;

struct Geo {
  std::int64_t n, c, h, w, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow;
};

// Direct convolution: y[n, o, i, j] = b[o] + sum over the group's channels and the kernel.
// Also its gradients for the output gradient gy.
void conv_ref(const Geo& g, const Vec& x, const Vec& w, const Vec& b, const Vec& gy, Vec& y,
              Vec& gx, Vec& gw, Vec& gb) {
  const std::int64_t cg = g.c / g.groups, og = g.o / g.groups;
  y.assign(static_cast<std::size_t>(g.n * g.o * g.oh * g.ow), 0);
  gx.assign(x.size(), 0);
  gw.assign(w.size(), 0);
  gb.assign(static_cast<std::size_t>(g.o), 0);
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t o = 0; o < g.o; ++o)
      for (std::int64_t i = 0; i < g.oh; ++i)
        for (std::int64_t j = 0; j < g.ow; ++j) {
          const auto yi = static_cast<std::size_t>(((n * g.o + o) * g.oh + i) * g.ow + j);
          double acc = b.empty() ? 0 : b[static_cast<std::size_t>(o)];
          gb[static_cast<std::size_t>(o)] += gy[yi];
          for (std::int64_t ci = 0; ci < cg; ++ci)
            for (std::int64_t p = 0; p < g.kh; ++p)
              for (std::int64_t q = 0; q < g.kw; ++q) {
                const std::int64_t r = i * g.sh - g.ph + p * g.dh, s = j * g.sw - g.pw + q * g.dw;
                if (r < 0 || r >= g.h || s < 0 || s >= g.w) continue;
                const std::int64_t c = o / og * cg + ci;
                const auto xi = static_cast<std::size_t>(((n * g.c + c) * g.h + r) * g.w + s);
                const auto wi = static_cast<std::size_t>(((o * cg + ci) * g.kh + p) * g.kw + q);
                acc += x[xi] * w[wi];
                gx[xi] += gy[yi] * w[wi];
                gw[wi] += gy[yi] * x[xi];
              }
          y[yi] = acc;
        }
}

// Direct pooling over g's windows (o == c): max (first maximal element takes the gradient)
// or mean with torch's divisor rule.
void pool_ref(const Geo& g, bool is_max, bool count_include_pad, const Vec& x, const Vec& gy,
              Vec& y, Vec& gx) {
  y.assign(static_cast<std::size_t>(g.n * g.c * g.oh * g.ow), 0);
  gx.assign(x.size(), 0);
  for (std::int64_t nc = 0; nc < g.n * g.c; ++nc)
    for (std::int64_t i = 0; i < g.oh; ++i)
      for (std::int64_t j = 0; j < g.ow; ++j) {
        const auto yi = static_cast<std::size_t>((nc * g.oh + i) * g.ow + j);
        double best = -INFINITY, sum = 0;
        std::size_t arg = 0;
        std::vector<std::size_t> inside;
        for (std::int64_t p = 0; p < g.kh; ++p)
          for (std::int64_t q = 0; q < g.kw; ++q) {
            const std::int64_t r = i * g.sh - g.ph + p * g.dh, s = j * g.sw - g.pw + q * g.dw;
            if (r < 0 || r >= g.h || s < 0 || s >= g.w) continue;
            const auto xi = static_cast<std::size_t>((nc * g.h + r) * g.w + s);
            inside.push_back(xi);
            sum += x[xi];
            if (x[xi] > best) best = x[xi], arg = xi;
          }
        if (is_max) {
          y[yi] = best;
          gx[arg] += gy[yi];
          continue;
        }
        const std::int64_t h0 = i * g.sh - g.ph, w0 = j * g.sw - g.pw;
        const std::int64_t pool =
            (std::min(h0 + g.kh, g.h + g.ph) - h0) * (std::min(w0 + g.kw, g.w + g.pw) - w0);
        const double d =
            count_include_pad ? static_cast<double>(pool) : static_cast<double>(inside.size());
        y[yi] = sum / d;
        for (std::size_t xi : inside) gx[xi] += gy[yi] / d;
      }
}

}  // namespace

TEST_P(BackendTest, ConvolutionAndPoolingMatchDirectLoops) {
  const Device dev(GetParam());
  int ran = 0;
  for (DType t : {DType::float32, DType::float64, DType::bfloat16, DType::float16}) {
    // What the composition runs on: copies, GEMM, sums, extremes and the masks of max_pool2d's
    // gradient (eq on int64 indices, where on t).
    if (!runs(OpFamily::fill, t) || !runs(OpFamily::cast, t) || !runs(OpFamily::gemm, t) ||
        !runs(BinaryOp::add, t) || !runs(BinaryOp::div, t) || !runs(ReductionOp::sum, t) ||
        !runs(ReductionOp::max, t) || !runs(ReductionOp::argmax, t) ||
        !runs(BinaryOp::eq, DType::int64) || !runs(TernaryOp::where, t))
      continue;
    ++ran;
    // The operands as t stores them, so that the direct loops sum what the backend reads.
    const auto values = [t](std::int64_t n, std::uint64_t seed) {
      Vec v = sample_values(DType::float64, n, seed);
      for (double& e : v) e = round_to(t, e);
      return v;
    };
    // n, c, h, w, o, kh, kw, sh, sw, ph, pw, dh, dw, groups
    const std::vector<Geo> convs{{2, 3, 7, 6, 4, 3, 2, 1, 1, 0, 0, 1, 1, 1, 0, 0},
                                 {1, 4, 9, 8, 6, 3, 3, 2, 3, 1, 2, 2, 1, 2, 0, 0},
                                 {3, 2, 5, 5, 2, 5, 5, 1, 1, 2, 2, 1, 1, 2, 0, 0},
                                 {2, 1, 28, 28, 6, 5, 5, 1, 1, 2, 2, 1, 1, 1, 0, 0},
                                 // More images than one block of a backend that cuts the batch
                                 // (the cpu's Backend::conv2d: 4 of these per block, the last
                                 // block of one), and groups, strides and dilation over several.
                                 {37, 6, 14, 14, 16, 5, 5, 1, 1, 0, 0, 1, 1, 1, 0, 0},
                                 {23, 4, 17, 15, 6, 3, 4, 2, 1, 1, 3, 2, 1, 2, 0, 0}};
    for (Geo g : convs) {
      g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
      g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
      const auto pair = [](std::int64_t a, std::int64_t b) {
        return std::to_string(a) + "x" + std::to_string(b);
      };
      const std::string op = "conv2d (input [" + std::to_string(g.n) + ", " + std::to_string(g.c) +
                             ", " + std::to_string(g.h) + ", " + std::to_string(g.w) +
                             "], kernel " + pair(g.kh, g.kw) + ", stride " + pair(g.sh, g.sw) +
                             ", padding " + pair(g.ph, g.pw) + ", dilation " + pair(g.dh, g.dw) +
                             ", groups " + std::to_string(g.groups) + ")";
      const Vec x = values(g.n * g.c * g.h * g.w, 1);
      const Vec w = values(g.o * g.c / g.groups * g.kh * g.kw, 2);
      const Vec b = values(g.o, 3);
      const Vec gy = values(g.n * g.o * g.oh * g.ow, 4);
      Vec y, gx, gw, gb;
      conv_ref(g, x, w, b, gy, y, gx, gw, gb);
      Tensor tx = upload(x, {g.n, g.c, g.h, g.w}, t, dev).requires_grad_();
      Tensor tw = upload(w, {g.o, g.c / g.groups, g.kh, g.kw}, t, dev).requires_grad_();
      Tensor tb = upload(b, {g.o}, t, dev).requires_grad_();
      const Tensor ty = conv2d(tx, tw, tb, {g.sh, g.sw}, {g.ph, g.pw}, {g.dh, g.dw}, g.groups);
      const std::int64_t window = g.c / g.groups * g.kh * g.kw, positions = g.n * g.oh * g.ow;
      expect_sums_near(ty, y, t, op + " output", window);
      ty.backward(upload(gy, ty.shape(), t, dev));
      expect_sums_near(tx.grad(), gx, t, op + " input gradient", g.o / g.groups * g.kh * g.kw);
      expect_sums_near(tw.grad(), gw, t, op + " weight gradient", positions);
      expect_sums_near(tb.grad(), gb, t, op + " bias gradient", positions);
      // Without a bias: a backend with Backend::conv2d_bias runs the two forward kernels.
      Vec y0, gx0, gw0, gb0;
      conv_ref(g, x, w, {}, gy, y0, gx0, gw0, gb0);
      expect_sums_near(conv2d(tx.detach(), tw.detach(), Tensor(), {g.sh, g.sw}, {g.ph, g.pw},
                              {g.dh, g.dw}, g.groups),
                       y0, t, op + " output without bias", window);
    }
    struct Pool {
      Geo g;
      bool is_max, ceil_mode, count_include_pad;
    };
    const std::vector<Pool> pools{
        {{2, 3, 8, 8, 3, 2, 2, 2, 2, 0, 0, 1, 1, 1, 0, 0}, true, false, true},
        {{1, 2, 7, 9, 2, 3, 2, 2, 1, 1, 1, 2, 1, 1, 0, 0}, true, true, true},
        {{2, 2, 8, 8, 2, 2, 2, 2, 2, 0, 0, 1, 1, 1, 0, 0}, false, false, true},
        {{1, 3, 7, 6, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 0, 0}, false, true, false},
        {{1, 3, 7, 6, 3, 3, 2, 2, 3, 1, 1, 1, 1, 1, 0, 0}, false, true, true}};
    for (Pool pc : pools) {
      Geo& g = pc.g;
      const auto size = [&](std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p,
                            std::int64_t d) {
        std::int64_t o = (in + 2 * p - d * (k - 1) - 1 + (pc.ceil_mode ? s - 1 : 0)) / s + 1;
        if (pc.ceil_mode && (o - 1) * s >= in + p) --o;
        return o;
      };
      g.oh = size(g.h, g.kh, g.sh, g.ph, g.dh);
      g.ow = size(g.w, g.kw, g.sw, g.pw, g.dw);
      const std::string op =
          std::string(pc.is_max ? "max_pool2d" : "avg_pool2d") + " (input [" + std::to_string(g.n) +
          ", " + std::to_string(g.c) + ", " + std::to_string(g.h) + ", " + std::to_string(g.w) +
          "], kernel " + std::to_string(g.kh) + "x" + std::to_string(g.kw) + ", stride " +
          std::to_string(g.sh) + "x" + std::to_string(g.sw) + ", padding " + std::to_string(g.ph) +
          "x" + std::to_string(g.pw) + (pc.ceil_mode ? ", ceil_mode" : "") +
          (pc.count_include_pad ? "" : ", padding not counted") + ")";
      const Vec x = values(g.n * g.c * g.h * g.w, 5);
      const Vec gy = values(g.n * g.c * g.oh * g.ow, 6);
      Vec y, gx;
      pool_ref(g, pc.is_max, pc.count_include_pad, x, gy, y, gx);
      Tensor tx = upload(x, {g.n, g.c, g.h, g.w}, t, dev).requires_grad_();
      const Tensor ty = pc.is_max ? max_pool2d(tx, {g.kh, g.kw}, Size2{g.sh, g.sw}, {g.ph, g.pw},
                                               {g.dh, g.dw}, pc.ceil_mode)
                                  : avg_pool2d(tx, {g.kh, g.kw}, Size2{g.sh, g.sw}, {g.ph, g.pw},
                                               pc.ceil_mode, pc.count_include_pad);
      expect_sums_near(ty, y, t, op + " output");
      ty.backward(upload(gy, ty.shape(), t, dev));
      expect_sums_near(tx.grad(), gx, t, op + " input gradient");
    }
    {
      const Vec x = values(2 * 7 * 5, 7);
      Vec y(2 * 3 * 4, 0);
      for (int c = 0; c < 2; ++c)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 4; ++j) {
            const int r0 = i * 7 / 3, r1 = ((i + 1) * 7 + 2) / 3, s0 = j * 5 / 4,
                      s1 = ((j + 1) * 5 + 3) / 4;
            double sum = 0;
            for (int r = r0; r < r1; ++r)
              for (int s = s0; s < s1; ++s) sum += x[static_cast<std::size_t>((c * 7 + r) * 5 + s)];
            y[static_cast<std::size_t>((c * 3 + i) * 4 + j)] = sum / ((r1 - r0) * (s1 - s0));
          }
      expect_sums_near(adaptive_avg_pool2d(upload(x, {2, 7, 5}, t, dev), {3, 4}), y, t,
                       "adaptive_avg_pool2d (input [2, 7, 5] to 3x4) output");
    }
  }
  // A backend lacking them skips, naming why; run() lists the pairs it lacks.
  if (ran == 0)
    GTEST_SKIP() << "backend '" << GetParam() << "' runs none of the kernels conv2d needs";
}

}  // namespace hetero::conformance
