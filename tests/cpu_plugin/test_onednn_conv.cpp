// SPDX-License-Identifier: Apache-2.0
// The cpu plugin's oneDNN convolution (onednn_conv.cpp) against the direct sums, for the
// four ops (the forward with and without its bias, the two gradients; float32 and bfloat16)
// over strides, padding, dilation and groups, its one side effect undone (the calling
// thread's OpenMP thread count is what it was before the call), and a batch split over the
// device's kernel threads without an OpenMP team (Note [oneDNN on the kernel threads]).
// (torch_conv.cpu checks the plugin's results against PyTorch through the core;
// torch_conv.cpu_im2col the fallback kernels.) Built only where the plugin has oneDNN
// (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <omp.h>

#include <dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <hetero/sdk/half.hpp>

#include "onednn_conv.hpp"
#include "thread_pool.hpp"

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

// Operands as `t` stores them: float32, or bfloat16 (the values rounded to it, so that the
// direct sums use what the primitive reads).
struct Stored {
  DType t;
  std::vector<float> f;        // the values (rounded to bfloat16 for t == bfloat16)
  std::vector<BFloat16> bf16;  // t == bfloat16: the stored elements
  explicit Stored(DType dtype, std::vector<float> v) : t(dtype), f(std::move(v)) {
    if (t != DType::bfloat16) return;
    bf16.assign(f.begin(), f.end());
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(bf16[i]);
  }
  Stored(DType dtype, std::size_t n) : Stored(dtype, std::vector<float>(n, NAN)) {}
  void* data() { return t == DType::bfloat16 ? static_cast<void*>(bf16.data()) : f.data(); }
  float at(std::size_t i) const {
    return t == DType::bfloat16 ? static_cast<float>(bf16[i]) : f[i];
  }
};

// The four ops of oneDNN in `t` against the direct sums in double of the same (rounded)
// operands: within 1e-4 (float32) or 2^-7 (bfloat16: its one rounding of a float32 sum, half a
// unit in the 8th bit) times 1 + |want|.
void every_op_matches_the_direct_sums(DType t) {
  const double tol = t == DType::bfloat16 ? 1.0 / 128 : 1e-4;
  std::mt19937 rng(3);
  for (const Conv2dArgs& g :
       {geometry(2, 3, 7, 6, 4, 1, 3, 1, 1, 1), geometry(3, 4, 9, 9, 6, 2, 3, 2, 0, 1),
        geometry(1, 8, 5, 5, 8, 1, 1, 1, 0, 1), geometry(2, 6, 8, 7, 3, 3, 2, 1, 2, 2),
        geometry(4, 16, 7, 7, 16, 1, 3, 2, 1, 1),
        // Split over 2 threads with the weight cut into runs of 16 channels: 44 of 48 (the
        // last run padded), and per group.
        geometry(3, 48, 6, 6, 44, 1, 3, 1, 1, 1), geometry(2, 32, 6, 5, 40, 4, 3, 1, 1, 1)}) {
    SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::to_string(g.n) + "x" +
                 std::to_string(g.c) + " groups " + std::to_string(g.groups) + " k " +
                 std::to_string(g.kh) + " s " + std::to_string(g.sh) + " p " +
                 std::to_string(g.ph) + " d " + std::to_string(g.dh));
    Stored x(t, random_values(static_cast<std::size_t>(g.n * g.c * g.h * g.w), rng));
    Stored w(t, random_values(static_cast<std::size_t>(g.o * g.c / g.groups * g.kh * g.kw), rng));
    Stored gy(t, random_values(static_cast<std::size_t>(g.n * g.o * g.oh * g.ow), rng));
    Stored b(t, random_values(static_cast<std::size_t>(g.o), rng));
    std::vector<double> y(gy.f.size()), gx(x.f.size()), gw(w.f.size());
    each_term(g, [&](std::int64_t yi, std::int64_t wi, std::int64_t xi) {
      const auto ys = static_cast<std::size_t>(yi), ws = static_cast<std::size_t>(wi),
                 xs = static_cast<std::size_t>(xi);
      y[ys] += double{x.f[xs]} * w.f[ws];
      gx[xs] += double{gy.f[ys]} * w.f[ws];
      gw[ws] += double{gy.f[ys]} * x.f[xs];
    });
    Stored out_y(t, y.size()), out_yb(t, y.size()), out_gx(t, gx.size()), out_gw(t, gw.size());
    using cpu::kernels::onednn_conv2d;
    ASSERT_TRUE(onednn_conv2d(Conv2dOp::forward, g, t, x.data(), w.data(), out_y.data(), 2));
    // With its bias (Conv2dOp::forward_bias): each output channel's bias added; without one
    // that op is declined (the caller then runs forward and adds it).
    ASSERT_TRUE(onednn_conv2d(Conv2dOp::forward_bias, g, t, x.data(), w.data(), out_yb.data(), 2,
                              b.data()));
    EXPECT_FALSE(onednn_conv2d(Conv2dOp::forward_bias, g, t, x.data(), w.data(), out_yb.data(), 2));
    ASSERT_TRUE(
        onednn_conv2d(Conv2dOp::backward_input, g, t, gy.data(), w.data(), out_gx.data(), 2));
    ASSERT_TRUE(
        onednn_conv2d(Conv2dOp::backward_weight, g, t, gy.data(), x.data(), out_gw.data(), 2));
    const auto near = [tol](const Stored& got, const std::vector<double>& want, auto&& plus,
                            const char* what) {
      for (std::size_t i = 0; i < want.size(); ++i) {
        const double e = want[i] + plus(i);
        ASSERT_NEAR(got.at(i), e, tol * (1 + std::abs(e))) << what << " " << i;
      }
    };
    const auto none = [](std::size_t) { return 0.0; };
    const std::int64_t plane = g.oh * g.ow;
    near(out_y, y, none, "y");
    near(
        out_yb, y,
        [&](std::size_t i) {
          return double{b.f[static_cast<std::size_t>(static_cast<std::int64_t>(i) / plane % g.o)]};
        },
        "y + bias");
    near(out_gx, gx, none, "gx");
    near(out_gw, gw, none, "gw");
  }
}

}  // namespace

TEST(OneDnnConv, EveryOpMatchesTheDirectSums) {
  ASSERT_TRUE(cpu::kernels::onednn_available());  // compiled only where the plugin has it
  every_op_matches_the_direct_sums(DType::float32);
}

// bfloat16 on oneDNN (issue #49 item 1), as torch's bfloat16 convolution: oneDNN has its
// bfloat16 kernels on CPUs with AVX-512 (natively with AVX512_BF16); elsewhere it declines
// and the plugin computes in float32 (kernels_conv.cpp), which torch_conv and the conformance
// kit check through the core.
TEST(OneDnnConv, BFloat16MatchesTheDirectSums) {
  const Conv2dArgs g = geometry(1, 4, 5, 5, 4, 1, 3, 1, 1, 1);
  std::vector<BFloat16> x(100, BFloat16(1.0F)), w(144, BFloat16(1.0F)), y(100);
  if (!cpu::kernels::onednn_conv2d(Conv2dOp::forward, g, DType::bfloat16, x.data(), w.data(),
                                   y.data(), 2)) {
    ASSERT_LT(dnnl::get_effective_cpu_isa(), dnnl::cpu_isa::avx512_core)
        << "oneDNN declined bfloat16 on a CPU with AVX-512";
    GTEST_SKIP() << "oneDNN has no bfloat16 convolution on this CPU (no AVX-512)";
  }
  EXPECT_EQ(static_cast<float>(y[6]), 36.0F);  // an inner position: 4 channels x 9 taps
  every_op_matches_the_direct_sums(DType::bfloat16);
}

TEST(OneDnnConv, LeavesTheCallersOpenMPThreadCount) {
  omp_set_num_threads(3);
  const Conv2dArgs g = geometry(1, 2, 4, 4, 2, 1, 3, 1, 1, 1);
  const std::vector<float> x(32, 1.0F), w(36, 1.0F);
  std::vector<float> y(32);
  ASSERT_TRUE(cpu::kernels::onednn_conv2d(Conv2dOp::forward, g, DType::float32, x.data(), w.data(),
                                          y.data(), 1));
  EXPECT_EQ(omp_get_max_threads(), 3);
  EXPECT_EQ(y[5], 18.0F);  // an inner position: 2 channels x 9 taps
}

// The blocks kept between calls (onednn_runtime.hpp's KeptBuffers) are freed by
// onednn_release_kept_buffers(), which Backend::empty_cache calls: from every thread, and a
// thread's own when it exits; the next call allocates them again and computes the same.
TEST(OneDnnConv, EmptyCacheFreesTheBuffersEveryThreadKeeps) {
  const Conv2dArgs g = geometry(8, 16, 12, 12, 16, 1, 3, 1, 1, 1);
  const std::vector<float> x(static_cast<std::size_t>(8 * 16 * 12 * 12), 1.0F),
      w(static_cast<std::size_t>(16 * 16 * 9), 1.0F);
  std::vector<float> y(x.size(), NAN);
  const auto run = [&] {
    ASSERT_TRUE(cpu::kernels::onednn_conv2d(Conv2dOp::forward, g, DType::float32, x.data(),
                                            w.data(), y.data(), 2));
    EXPECT_EQ(y[12 * 5 + 5], 144.0F);  // an inner position: 16 channels x 9 taps
  };
  cpu::kernels::onednn_release_kept_buffers();
  ASSERT_EQ(cpu::kernels::onednn_kept_bytes(), 0U);
  run();
  const std::size_t one_thread = cpu::kernels::onednn_kept_bytes();
  EXPECT_GT(one_thread, 0U);
  std::thread other(run);
  other.join();  // its blocks went with it
  EXPECT_EQ(cpu::kernels::onednn_kept_bytes(), one_thread);
  std::size_t two_threads = 0;
  std::mutex m;
  std::condition_variable cv;
  bool measured = false;
  std::thread kept([&] {
    run();
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return measured; });
  });
  while (cpu::kernels::onednn_kept_bytes() < 2 * one_thread) std::this_thread::yield();
  two_threads = cpu::kernels::onednn_kept_bytes();
  cpu::kernels::onednn_release_kept_buffers();  // both threads' blocks, one still alive
  EXPECT_EQ(cpu::kernels::onednn_kept_bytes(), 0U);
  {
    const std::lock_guard lock(m);
    measured = true;
  }
  cv.notify_one();
  kept.join();
  EXPECT_EQ(two_threads, 2 * one_thread);
  std::fill(y.begin(), y.end(), NAN);
  run();
  EXPECT_EQ(cpu::kernels::onednn_kept_bytes(), one_thread);
}

namespace {
// Threads of this process now (/proc/self/task).
std::size_t process_threads() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}
}  // namespace

// Note [oneDNN on the kernel threads]: a batch of at least as many samples as the device's
// kernel threads runs as one part per kernel thread, each with one OpenMP thread, so libgomp
// starts no team (whose idle workers would spin beside the device's next kernels), and the
// result is the one-thread result bit for bit (each part is a smaller batch of the same
// primitive; the weight gradient's parts are added in part order). A batch of one still runs
// on an OpenMP team: the control that shows the count sees libgomp's workers.
TEST(OneDnnConv, BatchesRunOnTheKernelThreadsWithoutAnOpenMPTeam) {
  std::mt19937 rng(11);
  // 5 images over 2 threads: parts of 2 and 3 (two part sizes, two plans); 40 output and
  // 40 input channels: the weight is cut into runs of 16 (2 blocks and 1, the last padded).
  const Conv2dArgs g = geometry(5, 40, 11, 11, 40, 1, 3, 1, 1, 1),
                   one = geometry(1, 40, 11, 11, 40, 1, 3, 1, 1, 1);
  const std::vector<float> x = random_values(static_cast<std::size_t>(5 * 40 * 11 * 11), rng),
                           w = random_values(static_cast<std::size_t>(40 * 40 * 9), rng),
                           gy = random_values(static_cast<std::size_t>(5 * 40 * 11 * 11), rng);
  using cpu::kernels::onednn_conv2d;
  // Each op alone on this thread with no pool (the parts one after the other), whose OpenMP
  // count is an application's own: the parts' primitives are made for one thread whatever it is.
  omp_set_num_threads(4);
  std::vector<float> y_serial(gy.size()), gx_serial(x.size()), gw_serial(w.size());
  ASSERT_TRUE(
      onednn_conv2d(Conv2dOp::forward, g, DType::float32, x.data(), w.data(), y_serial.data(), 2));
  ASSERT_TRUE(onednn_conv2d(Conv2dOp::backward_input, g, DType::float32, gy.data(), w.data(),
                            gx_serial.data(), 2));
  ASSERT_TRUE(onednn_conv2d(Conv2dOp::backward_weight, g, DType::float32, gy.data(), x.data(),
                            gw_serial.data(), 2));
  std::vector<float> y(gy.size()), gx(x.size()), gw(w.size()), y_one(40 * 11 * 11);
  std::size_t before = 0, after_batch = 0, after_one = 0;
  // A thread of its own: libgomp keeps a team per thread that starts one, so only this
  // thread's calls could start one here.
  std::thread caller([&] {
    cpu::ThreadPool pool(2);
    const cpu::ScopedKernelPool scope(&pool);
    before = process_threads();
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(onednn_conv2d(Conv2dOp::forward, g, DType::float32, x.data(), w.data(), y.data(),
                                cpu::kernel_threads()));
      EXPECT_TRUE(onednn_conv2d(Conv2dOp::backward_input, g, DType::float32, gy.data(), w.data(),
                                gx.data(), cpu::kernel_threads()));
      EXPECT_TRUE(onednn_conv2d(Conv2dOp::backward_weight, g, DType::float32, gy.data(), x.data(),
                                gw.data(), cpu::kernel_threads()));
    }
    after_batch = process_threads();
    EXPECT_TRUE(onednn_conv2d(Conv2dOp::forward, one, DType::float32, x.data(), w.data(),
                              y_one.data(), cpu::kernel_threads()));
    after_one = process_threads();
  });
  caller.join();
  EXPECT_EQ(after_batch, before) << "a batch of 5 over 2 kernel threads started threads";
  EXPECT_GT(after_one, before) << "a batch of one on 2 OpenMP threads: libgomp's workers";
  EXPECT_EQ(y, y_serial);
  EXPECT_EQ(gx, gx_serial);
  EXPECT_EQ(gw, gw_serial);
  // And the parts are the convolution: the first image's output is the batch of one's (the
  // direct sums check every op: EveryOpMatchesTheDirectSums, batches of 2-4 over 2 threads).
  for (std::size_t i = 0; i < y_one.size(); ++i) ASSERT_NEAR(y[i], y_one[i], 1e-5) << i;
}
