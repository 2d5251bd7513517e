// SPDX-License-Identifier: Apache-2.0
// The cpu plugin's oneDNN convolution (onednn_conv.cpp) against the direct sums, for the
// four ops (the forward with and without its bias, the two gradients) over strides, padding,
// dilation and groups, and its one side effect undone: the calling thread's OpenMP thread count is
// what it was before the call. (torch_conv.cpu checks the plugin's results against PyTorch through
// the core; torch_conv.cpu_im2col the fallback kernels.) Built only where the plugin has oneDNN
// (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <random>
#include <vector>

#include "onednn_conv.hpp"

using namespace hetero;

namespace {

struct Case {
  Conv2dArgs g;
  std::vector<float> x, w, y;  // input, weight, output (or their gradients)
};

Conv2dArgs geometry(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t o,
                    std::int64_t groups, std::int64_t k, std::int64_t s, std::int64_t p,
                    std::int64_t d) {
  Conv2dArgs g;
  g.n = n, g.c = c, g.h = h, g.w = w, g.o = o, g.groups = groups;
  g.kh = g.kw = k, g.sh = g.sw = s, g.ph = g.pw = p, g.dh = g.dw = d;
  g.oh = (h + 2 * p - d * (k - 1) - 1) / s + 1;
  g.ow = (w + 2 * p - d * (k - 1) - 1) / s + 1;
  return g;
}

// Calls f(image, out channel, oy, ox, in channel, ky, kx, input index) for every product term.
template <class F>
void each_term(const Conv2dArgs& g, F&& f) {
  const std::int64_t cg = g.c / g.groups, og = g.o / g.groups;
  for (std::int64_t i = 0; i < g.n; ++i)
    for (std::int64_t oc = 0; oc < g.o; ++oc)
      for (std::int64_t oy = 0; oy < g.oh; ++oy)
        for (std::int64_t ox = 0; ox < g.ow; ++ox)
          for (std::int64_t ic = 0; ic < cg; ++ic)
            for (std::int64_t ky = 0; ky < g.kh; ++ky)
              for (std::int64_t kx = 0; kx < g.kw; ++kx) {
                const std::int64_t iy = oy * g.sh - g.ph + ky * g.dh,
                                   ix = ox * g.sw - g.pw + kx * g.dw;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                const std::int64_t c = oc / og * cg + ic;
                f(((i * g.o + oc) * g.oh + oy) * g.ow + ox,
                  ((oc * cg + ic) * g.kh + ky) * g.kw + kx, ((i * g.c + c) * g.h + iy) * g.w + ix);
              }
}

std::vector<float> random_values(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (auto& e : v) e = u(rng);
  return v;
}

}  // namespace

TEST(OneDnnConv, EveryOpMatchesTheDirectSums) {
  ASSERT_TRUE(cpu::kernels::onednn_available());  // compiled only where the plugin has it
  std::mt19937 rng(3);
  for (const Conv2dArgs& g :
       {geometry(2, 3, 7, 6, 4, 1, 3, 1, 1, 1), geometry(3, 4, 9, 9, 6, 2, 3, 2, 0, 1),
        geometry(1, 8, 5, 5, 8, 1, 1, 1, 0, 1), geometry(2, 6, 8, 7, 3, 3, 2, 1, 2, 2),
        geometry(4, 16, 7, 7, 16, 1, 3, 2, 1, 1)}) {
    SCOPED_TRACE(std::to_string(g.n) + "x" + std::to_string(g.c) + " groups " +
                 std::to_string(g.groups) + " k " + std::to_string(g.kh) + " s " +
                 std::to_string(g.sh) + " p " + std::to_string(g.ph) + " d " +
                 std::to_string(g.dh));
    const auto x = random_values(static_cast<std::size_t>(g.n * g.c * g.h * g.w), rng);
    const auto w = random_values(static_cast<std::size_t>(g.o * g.c / g.groups * g.kh * g.kw), rng);
    const auto gy = random_values(static_cast<std::size_t>(g.n * g.o * g.oh * g.ow), rng);
    std::vector<double> y(gy.size()), gx(x.size()), gw(w.size());
    each_term(g, [&](std::int64_t yi, std::int64_t wi, std::int64_t xi) {
      y[static_cast<std::size_t>(yi)] +=
          double{x[static_cast<std::size_t>(xi)]} * w[static_cast<std::size_t>(wi)];
      gx[static_cast<std::size_t>(xi)] +=
          double{gy[static_cast<std::size_t>(yi)]} * w[static_cast<std::size_t>(wi)];
      gw[static_cast<std::size_t>(wi)] +=
          double{gy[static_cast<std::size_t>(yi)]} * x[static_cast<std::size_t>(xi)];
    });
    std::vector<float> out_y(y.size(), NAN), out_gx(gx.size(), NAN), out_gw(gw.size(), NAN);
    ASSERT_TRUE(
        cpu::kernels::onednn_conv2d(Conv2dOp::forward, g, x.data(), w.data(), out_y.data(), 2));
    // With its bias (Conv2dOp::forward_bias): each output channel's bias added; without one
    // that op is declined (the caller then runs forward and adds it).
    const auto b = random_values(static_cast<std::size_t>(g.o), rng);
    std::vector<float> out_yb(y.size(), NAN);
    ASSERT_TRUE(cpu::kernels::onednn_conv2d(Conv2dOp::forward_bias, g, x.data(), w.data(),
                                            out_yb.data(), 2, b.data()));
    EXPECT_FALSE(cpu::kernels::onednn_conv2d(Conv2dOp::forward_bias, g, x.data(), w.data(),
                                             out_yb.data(), 2));
    const std::int64_t plane = g.oh * g.ow;
    for (std::size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(out_yb[i],
                  y[i] + b[static_cast<std::size_t>(static_cast<std::int64_t>(i) / plane % g.o)],
                  1e-4)
          << "y + bias " << i;
    ASSERT_TRUE(cpu::kernels::onednn_conv2d(Conv2dOp::backward_input, g, gy.data(), w.data(),
                                            out_gx.data(), 2));
    ASSERT_TRUE(cpu::kernels::onednn_conv2d(Conv2dOp::backward_weight, g, gy.data(), x.data(),
                                            out_gw.data(), 2));
    for (std::size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(out_y[i], y[i], 1e-4) << "y " << i;
    for (std::size_t i = 0; i < gx.size(); ++i) ASSERT_NEAR(out_gx[i], gx[i], 1e-4) << "gx " << i;
    for (std::size_t i = 0; i < gw.size(); ++i) ASSERT_NEAR(out_gw[i], gw[i], 1e-4) << "gw " << i;
  }
}

TEST(OneDnnConv, LeavesTheCallersOpenMPThreadCount) {
  omp_set_num_threads(3);
  const Conv2dArgs g = geometry(1, 2, 4, 4, 2, 1, 3, 1, 1, 1);
  const std::vector<float> x(32, 1.0F), w(36, 1.0F);
  std::vector<float> y(32);
  ASSERT_TRUE(cpu::kernels::onednn_conv2d(Conv2dOp::forward, g, x.data(), w.data(), y.data(), 1));
  EXPECT_EQ(omp_get_max_threads(), 3);
  EXPECT_EQ(y[5], 18.0F);  // an inner position: 2 channels x 9 taps
}
