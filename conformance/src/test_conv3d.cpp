// SPDX-License-Identifier: Apache-2.0
// conv3d of the core (Note [3-d ops from 2-d ones]: composed from conv2d, or the backend's own
// Backend::conv3d where it has one, interface minor 16) on the backend under test, against
// direct loops in double: the output and the gradients of input, weight and bias, for
// strides, padding, dilation and groups, in float32, float64, float16 and bfloat16 (sums in
// float32, rounded once). Tolerance: test_conv.cpp's (1e-4 float32, 1e-10 float64, one
// unit in the last place for 16-bit, relative to 1 + |want|, growing with the square root of
// the terms beyond 256).
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

struct Geo3 {
  std::int64_t n, c, d, h, w, o, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw, groups;
  std::int64_t od = 0, oh = 0, ow = 0;
};

// Direct 3-d convolution and its gradients for the output gradient gy.
void conv3d_ref(const Geo3& g, const Vec& x, const Vec& w, const Vec& b, const Vec& gy, Vec& y,
                Vec& gx, Vec& gw, Vec& gb) {
  const std::int64_t cg = g.c / g.groups, og = g.o / g.groups;
  y.assign(static_cast<std::size_t>(g.n * g.o * g.od * g.oh * g.ow), 0);
  gx.assign(x.size(), 0);
  gw.assign(w.size(), 0);
  gb.assign(static_cast<std::size_t>(g.o), 0);
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t o = 0; o < g.o; ++o)
      for (std::int64_t t = 0; t < g.od; ++t)
        for (std::int64_t i = 0; i < g.oh; ++i)
          for (std::int64_t j = 0; j < g.ow; ++j) {
            const auto yi =
                static_cast<std::size_t>((((n * g.o + o) * g.od + t) * g.oh + i) * g.ow + j);
            double acc = b[static_cast<std::size_t>(o)];
            gb[static_cast<std::size_t>(o)] += gy[yi];
            for (std::int64_t ci = 0; ci < cg; ++ci)
              for (std::int64_t a = 0; a < g.kd; ++a)
                for (std::int64_t p = 0; p < g.kh; ++p)
                  for (std::int64_t q = 0; q < g.kw; ++q) {
                    const std::int64_t f = t * g.sd - g.pd + a * g.dd,
                                       r = i * g.sh - g.ph + p * g.dh,
                                       s = j * g.sw - g.pw + q * g.dw;
                    if (f < 0 || f >= g.d || r < 0 || r >= g.h || s < 0 || s >= g.w) continue;
                    const std::int64_t c = o / og * cg + ci;
                    const auto xi =
                        static_cast<std::size_t>((((n * g.c + c) * g.d + f) * g.h + r) * g.w + s);
                    const auto wi = static_cast<std::size_t>(
                        (((o * cg + ci) * g.kd + a) * g.kh + p) * g.kw + q);
                    acc += x[xi] * w[wi];
                    gx[xi] += gy[yi] * w[wi];
                    gw[wi] += gy[yi] * x[xi];
                  }
            y[yi] = acc;
          }
}

}  // namespace

TEST_P(BackendTest, Conv3dMatchesDirectLoops) {
  const Device dev(GetParam());
  int ran = 0;
  for (DType t : {DType::float32, DType::float64, DType::bfloat16, DType::float16}) {
    // What the composition runs on (conv2d's, plus cat and permute copies), unless the
    // backend has its own kernels.
    const bool kernels = runs(Conv3dOp::forward, t) && runs(Conv3dOp::backward_input, t) &&
                         runs(Conv3dOp::backward_weight, t);
    if (!kernels &&
        (!runs(OpFamily::fill, t) || !runs(OpFamily::cast, t) || !runs(OpFamily::gemm, t) ||
         !runs(BinaryOp::add, t) || !runs(ReductionOp::sum, t)))
      continue;
    ++ran;
    const auto values = [t](std::int64_t n, std::uint64_t seed) {
      Vec v = sample_values(DType::float64, n, seed);
      for (double& e : v) e = round_to(t, e);
      return v;
    };
    // n, c, d, h, w, o, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw, groups
    const std::vector<Geo3> convs{{2, 3, 4, 5, 4, 4, 2, 3, 2, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1},
                                  {1, 4, 6, 7, 5, 6, 3, 3, 2, 2, 1, 2, 1, 1, 0, 1, 2, 1, 2},
                                  {3, 2, 5, 4, 6, 2, 2, 2, 3, 1, 2, 1, 1, 0, 1, 2, 1, 1, 2},
                                  {5, 6, 3, 6, 6, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
    for (Geo3 g : convs) {
      g.od = (g.d + 2 * g.pd - g.dd * (g.kd - 1) - 1) / g.sd + 1;
      g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
      g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
      const std::string op = "conv3d (input [" + std::to_string(g.n) + ", " + std::to_string(g.c) +
                             ", " + std::to_string(g.d) + ", " + std::to_string(g.h) + ", " +
                             std::to_string(g.w) + "], kernel " + std::to_string(g.kd) + "x" +
                             std::to_string(g.kh) + "x" + std::to_string(g.kw) + ", groups " +
                             std::to_string(g.groups) + ") " + std::string(dtype_name(t));
      const Vec x = values(g.n * g.c * g.d * g.h * g.w, 11);
      const Vec w = values(g.o * g.c / g.groups * g.kd * g.kh * g.kw, 12);
      const Vec b = values(g.o, 13);
      const Vec gy = values(g.n * g.o * g.od * g.oh * g.ow, 14);
      Vec y, gx, gw, gb;
      conv3d_ref(g, x, w, b, gy, y, gx, gw, gb);
      Tensor tx = upload(x, {g.n, g.c, g.d, g.h, g.w}, t, dev).requires_grad_();
      Tensor tw = upload(w, {g.o, g.c / g.groups, g.kd, g.kh, g.kw}, t, dev).requires_grad_();
      Tensor tb = upload(b, {g.o}, t, dev).requires_grad_();
      const Tensor ty =
          conv3d(tx, tw, tb, {g.sd, g.sh, g.sw}, {g.pd, g.ph, g.pw}, {g.dd, g.dh, g.dw}, g.groups);
      const std::int64_t window = g.c / g.groups * g.kd * g.kh * g.kw;
      expect_sums_near(ty, y, t, op + " output", window);
      ty.backward(upload(gy, ty.shape(), t, dev));
      expect_sums_near(tx.grad(), gx, t, op + " input gradient",
                       g.o / g.groups * g.kd * g.kh * g.kw);
      const std::int64_t positions = g.n * g.od * g.oh * g.ow;
      expect_sums_near(tw.grad(), gw, t, op + " weight gradient", positions);
      expect_sums_near(tb.grad(), gb, t, op + " bias gradient", positions);
    }
  }
  if (ran == 0) GTEST_SKIP() << "the backend runs neither Backend::conv3d nor conv2d's kernels";
}

}  // namespace hetero::conformance
