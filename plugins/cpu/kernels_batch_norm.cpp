// SPDX-License-Identifier: Apache-2.0
// Note [Batch norm kernels on the cpu]: Backend::batch_norm as torch's own cpu kernels for
// contiguous NCHW (batch_norm_cpu_collect_stats_contiguous and batch_norm_backward_cpu in
// aten/src/ATen/native/cpu/batch_norm_kernel.cpp), not on oneDNN: oneDNN 2.6's primitive
// for the plain layout (ncsp_bnorm) took 7.9 ms for BatchNorm2d(64)'s forward + backward on
// [128, 64, 14, 14] where the core's composition took 4.5 ms (2 threads, 2026-11-26), and its
// fast kernels want blocked layouts, whose reorders would cost two more passes each way
// (libtorch, too, keeps NCHW batch norm off oneDNN). Channels are spread over the kernel
// threads; a channel's n planes (about 100 KiB in a ResNet) are read from memory once per
// kernel and then again from cache:
// - forward: the mean, then the biased variance as the sum of (x - mean)^2 (two passes, as
//   torch, so that inputs far from zero keep their digits), then y = x * alpha + beta with
//   alpha = weight / sqrt(var + eps) and beta = bias - mean * alpha;
// - backward: sum(dy) and sum(dy * (x - mean)), then dx = (dy - mean(dy) - (x - mean) * k) *
//   scale with k = sum(dy (x - mean)) / (M (var + eps)) and scale = weight / sqrt(var + eps).
// Each plane is summed in the dtype over 16 independent accumulators (whole vectors for the
// compiler) and the planes' sums in double; planes shorter than 16 (BatchNorm1d, 1x1 maps) go
// image by image over a range of channels instead, summing in double. batch_norm_reference is the
// same rule in double, one element at a time: the unit tests' yardstick.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "thread_pool.hpp"

namespace hetero::cpu::kernels {
namespace {

constexpr int kLanes = 16;

// sum over i < n of f(i), in T over kLanes accumulators, returned in double.
template <class T, class F>
double plane_sum(std::int64_t n, F&& f) {
  T acc[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += f(i + k);
  T rest = 0;
  for (; i < n; ++i) rest += f(i);
  double total = rest;
  for (int k = 0; k < kLanes; ++k) total += acc[k];
  return total;
}

template <class T>
const T* in(const StridedView& v) {
  return v.buffer ? data_of<T>(v) + v.offset : nullptr;
}
template <class T>
T* out(const StridedView& v) {
  return v.buffer ? data_of<T>(v) + v.offset : nullptr;
}

// Planes shorter than this are walked row by row (see forward_rows): a plane of a few elements
// is too short for plane_sum's vectors.
constexpr std::int64_t kMinPlane = 16;

// The channels' statistics and the per-channel maps when planes are short (BatchNorm1d's
// [N, C], a ResNet's last 1x1 stage): image by image, the channel range's elements are one
// contiguous run, summed into per-channel doubles (the loop vectorises across channels).
template <class T>
void forward_rows(const BatchNormArgs& a, const T* x, const T* wb, T* stats, T* y) {
  const std::int64_t s = a.spatial;
  const auto m = static_cast<double>(a.n * s);
  parallel_ranges(a.c, [&](std::int64_t c0, std::int64_t c1) {
    const auto width = static_cast<std::size_t>(c1 - c0);
    std::vector<double> sum(width), sq(width), alpha(width), beta(width);
    for (std::int64_t n = 0; n < a.n; ++n) {
      const T* row = x + (n * a.c + c0) * s;
      for (std::size_t c = 0; c < width; ++c)
        for (std::int64_t i = 0; i < s; ++i) sum[c] += row[static_cast<std::int64_t>(c) * s + i];
    }
    for (double& v : sum) v /= m;  // now the means
    for (std::int64_t n = 0; n < a.n; ++n) {
      const T* row = x + (n * a.c + c0) * s;
      for (std::size_t c = 0; c < width; ++c)
        for (std::int64_t i = 0; i < s; ++i) {
          const double d = row[static_cast<std::int64_t>(c) * s + i] - sum[c];
          sq[c] += d * d;
        }
    }
    for (std::size_t c = 0; c < width; ++c) {
      const std::int64_t k = c0 + static_cast<std::int64_t>(c);
      const double var = sq[c] / m, invstd = 1 / std::sqrt(var + a.eps);
      stats[k] = static_cast<T>(sum[c]);
      stats[a.c + k] = static_cast<T>(var);
      alpha[c] = invstd * static_cast<double>(wb[k]);
      beta[c] = static_cast<double>(wb[a.c + k]) - sum[c] * alpha[c];
    }
    for (std::int64_t n = 0; n < a.n; ++n) {
      const T* row = x + (n * a.c + c0) * s;
      T* out_row = y + (n * a.c + c0) * s;
      for (std::size_t c = 0; c < width; ++c)
        for (std::int64_t i = 0; i < s; ++i) {
          const std::int64_t e = static_cast<std::int64_t>(c) * s + i;
          out_row[e] = static_cast<T>(row[e] * alpha[c] + beta[c]);
        }
    }
  });
}

template <class T>
void backward_rows(const BatchNormArgs& a, const T* x, const T* dy, const T* wb, const T* stats,
                   T* dx, T* dwb) {
  const std::int64_t s = a.spatial;
  const auto m = static_cast<double>(a.n * s);
  parallel_ranges(a.c, [&](std::int64_t c0, std::int64_t c1) {
    const auto width = static_cast<std::size_t>(c1 - c0);
    std::vector<double> sum_dy(width), sum_dy_xmu(width), mean(width), ga(width), gb(width),
        gc(width);
    for (std::size_t c = 0; c < width; ++c) mean[c] = stats[c0 + static_cast<std::int64_t>(c)];
    for (std::int64_t n = 0; n < a.n; ++n) {
      const T* row = x + (n * a.c + c0) * s;
      const T* g = dy + (n * a.c + c0) * s;
      for (std::size_t c = 0; c < width; ++c)
        for (std::int64_t i = 0; i < s; ++i) {
          const std::int64_t e = static_cast<std::int64_t>(c) * s + i;
          sum_dy[c] += g[e];
          sum_dy_xmu[c] += g[e] * (row[e] - mean[c]);
        }
    }
    for (std::size_t c = 0; c < width; ++c) {
      const std::int64_t k = c0 + static_cast<std::int64_t>(c);
      const double invstd = 1 / std::sqrt(static_cast<double>(stats[a.c + k]) + a.eps);
      const double scale = invstd * static_cast<double>(wb[k]);
      const double kk = sum_dy_xmu[c] * invstd * invstd / m, mean_dy = sum_dy[c] / m;
      ga[c] = scale;
      gb[c] = kk * scale;
      gc[c] = (mean[c] * kk - mean_dy) * scale;
      dwb[k] = static_cast<T>(sum_dy_xmu[c] * invstd);
      dwb[a.c + k] = static_cast<T>(sum_dy[c]);
    }
    for (std::int64_t n = 0; n < a.n; ++n) {
      const T* row = x + (n * a.c + c0) * s;
      const T* g = dy + (n * a.c + c0) * s;
      T* out_row = dx + (n * a.c + c0) * s;
      for (std::size_t c = 0; c < width; ++c)
        for (std::int64_t i = 0; i < s; ++i) {
          const std::int64_t e = static_cast<std::int64_t>(c) * s + i;
          out_row[e] = static_cast<T>(g[e] * ga[c] - row[e] * gb[c] + gc[c]);
        }
    }
  });
}

template <class T>
void forward(const BatchNormArgs& a, const BatchNormViews& v) {
  const T* x = in<T>(v.input);
  const T* wb = in<T>(v.weight_bias);
  T* stats = out<T>(v.stats);
  T* y = out<T>(v.output);
  const std::int64_t s = a.spatial;
  if (s < kMinPlane) return forward_rows(a, x, wb, stats, y);
  const auto m = static_cast<double>(a.n * s);
  parallel_each(a.c, [&](std::int64_t c) {
    double sum = 0, sq = 0;
    for (std::int64_t n = 0; n < a.n; ++n) {
      const T* p = x + (n * a.c + c) * s;
      sum += plane_sum<T>(s, [p](std::int64_t i) { return p[i]; });
    }
    const double mean = sum / m;
    const T mean_t = static_cast<T>(mean);
    for (std::int64_t n = 0; n < a.n; ++n) {
      const T* p = x + (n * a.c + c) * s;
      sq += plane_sum<T>(s, [p, mean_t](std::int64_t i) {
        const T d = p[i] - mean_t;
        return d * d;
      });
    }
    const double var = sq / m, invstd = 1 / std::sqrt(var + a.eps);
    stats[c] = static_cast<T>(mean);
    stats[a.c + c] = static_cast<T>(var);
    const double alpha = invstd * static_cast<double>(wb[c]);
    const auto alpha_t = static_cast<T>(alpha),
               beta_t = static_cast<T>(static_cast<double>(wb[a.c + c]) - mean * alpha);
    for (std::int64_t n = 0; n < a.n; ++n) {
      const T* p = x + (n * a.c + c) * s;
      T* q = y + (n * a.c + c) * s;
      for (std::int64_t i = 0; i < s; ++i) q[i] = p[i] * alpha_t + beta_t;
    }
  });
}

template <class T>
void backward(const BatchNormArgs& a, const BatchNormViews& v) {
  const T* x = in<T>(v.input);
  const T* dy = in<T>(v.grad_output);
  const T* wb = in<T>(v.weight_bias);
  const T* stats = in<T>(v.stats);
  T* dx = out<T>(v.output);
  T* dwb = out<T>(v.grad_weight_bias);
  const std::int64_t s = a.spatial;
  if (s < kMinPlane) return backward_rows(a, x, dy, wb, stats, dx, dwb);
  const auto m = static_cast<double>(a.n * s);
  parallel_each(a.c, [&](std::int64_t c) {
    const double mean = stats[c],
                 invstd = 1 / std::sqrt(static_cast<double>(stats[a.c + c]) + a.eps);
    const T mean_t = stats[c];
    double sum_dy = 0, sum_dy_xmu = 0;
    for (std::int64_t n = 0; n < a.n; ++n) {
      const T* p = x + (n * a.c + c) * s;
      const T* g = dy + (n * a.c + c) * s;
      sum_dy += plane_sum<T>(s, [g](std::int64_t i) { return g[i]; });
      sum_dy_xmu +=
          plane_sum<T>(s, [p, g, mean_t](std::int64_t i) { return g[i] * (p[i] - mean_t); });
    }
    const double scale = invstd * static_cast<double>(wb[c]);
    const double k = sum_dy_xmu * invstd * invstd / m, mean_dy = sum_dy / m;
    // dx = dy * scale - x * (k * scale) + (mean * k - mean_dy) * scale
    const auto a_t = static_cast<T>(scale), b_t = static_cast<T>(k * scale),
               c_t = static_cast<T>((mean * k - mean_dy) * scale);
    for (std::int64_t n = 0; n < a.n; ++n) {
      const T* p = x + (n * a.c + c) * s;
      const T* g = dy + (n * a.c + c) * s;
      T* q = dx + (n * a.c + c) * s;
      for (std::int64_t i = 0; i < s; ++i) q[i] = g[i] * a_t - p[i] * b_t + c_t;
    }
    dwb[c] = static_cast<T>(sum_dy_xmu * invstd);
    dwb[a.c + c] = static_cast<T>(sum_dy);
  });
}

template <class T>
void reference(BatchNormOp op, const BatchNormArgs& a, const BatchNormViews& v) {
  const T* x = in<T>(v.input);
  const T* wb = in<T>(v.weight_bias);
  const std::int64_t m = a.n * a.spatial;
  // Element i of channel c in image n: x[(n * c_count + c) * spatial + i].
  const auto for_channel = [&](std::int64_t c, auto&& f) {
    for (std::int64_t n = 0; n < a.n; ++n) {
      const std::int64_t base = (n * a.c + c) * a.spatial;
      for (std::int64_t i = 0; i < a.spatial; ++i) f(base + i);
    }
  };
  for (std::int64_t c = 0; c < a.c; ++c) {
    const double w = wb[c], b = wb[a.c + c];
    if (op == BatchNormOp::forward_training) {
      T* stats = out<T>(v.stats);
      T* y = out<T>(v.output);
      double sum = 0, sq = 0;
      for_channel(c, [&](std::int64_t k) { sum += x[k]; });
      const double mean = sum / static_cast<double>(m);
      for_channel(c, [&](std::int64_t k) { sq += (x[k] - mean) * (x[k] - mean); });
      const double var = sq / static_cast<double>(m), invstd = 1 / std::sqrt(var + a.eps);
      stats[c] = static_cast<T>(mean);
      stats[a.c + c] = static_cast<T>(var);
      for_channel(c,
                  [&](std::int64_t k) { y[k] = static_cast<T>((x[k] - mean) * invstd * w + b); });
    } else {
      const T* stats = in<T>(v.stats);
      const T* dy = in<T>(v.grad_output);
      T* dx = out<T>(v.output);
      T* dwb = out<T>(v.grad_weight_bias);
      const double mean = stats[c], invstd = 1 / std::sqrt(stats[a.c + c] + a.eps);
      double sum_dy = 0, sum_dy_xmu = 0;
      for_channel(c, [&](std::int64_t k) {
        sum_dy += dy[k];
        sum_dy_xmu += dy[k] * (x[k] - mean);
      });
      const double k_ = sum_dy_xmu * invstd * invstd / static_cast<double>(m);
      const double mean_dy = sum_dy / static_cast<double>(m), scale = invstd * w;
      for_channel(c, [&](std::int64_t k) {
        dx[k] = static_cast<T>((dy[k] - mean_dy - (x[k] - mean) * k_) * scale);
      });
      dwb[c] = static_cast<T>(sum_dy_xmu * invstd);
      dwb[a.c + c] = static_cast<T>(sum_dy);
    }
  }
}

// f(T{}) for float32 and float64; NotImplementedError naming `op` otherwise.
template <class F>
void floating(BatchNormOp op, DType t, F&& f) {
  switch (t) {
    case DType::float32:
      return f(float{});
    case DType::float64:
      return f(double{});
    default:
      throw NotImplementedError(std::string(op_name(op)) +
                                ": the cpu kernels take float32 and float64, not " +
                                std::string(dtype_name(t)));
  }
}

}  // namespace

void batch_norm(BatchNormOp op, const BatchNormArgs& args, const BatchNormViews& views) {
  floating(op, views.output.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (op == BatchNormOp::forward_training)
      forward<T>(args, views);
    else
      backward<T>(args, views);
  });
}

void batch_norm_reference(BatchNormOp op, const BatchNormArgs& args, const BatchNormViews& views) {
  floating(op, views.output.dtype, [&](auto tag) { reference<decltype(tag)>(op, args, views); });
}

}  // namespace hetero::cpu::kernels
