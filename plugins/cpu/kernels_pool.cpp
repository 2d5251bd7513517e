// SPDX-License-Identifier: Apache-2.0
// Note [Max pooling on the cpu]: Backend::pool2d as torch's cpu kernel for contiguous NCHW
// (cpu_max_pool in aten/src/ATen/native/cpu/MaxPoolKernel.cpp): each (image, channel) plane on
// its own, planes spread over the kernel threads; each window scanned in place, the maximum
// starting at -inf with the window's first in-bounds element as its index and replaced by a
// greater value or a NaN (so the last NaN wins, as torch's). A window without an in-bounds
// element (dilation past a short input, docs/semantics.md row 21) gives -inf and index -1,
// whose gradient the backward drops. The backward zeroes each plane of dL/dx and adds dL/dy at
// each window's index, plane by plane (no two threads write one plane). The composed path
// (core/src/ops_pool.cpp) copied every window into a line, then reduced the lines twice and
// scattered and folded the gradient back: 27 ms of a 210 ms ResNet-18 step. Rows of windows
// with dilation 1 and stride 1 or 2 run in vectors (vector_pool.hpp), the same rule lane by
// lane: the scalar loop's branch on each element mispredicted in real data (ResNet's
// 112x112 max-pool forward 90 -> 11 ms, the example's 14x14 6.3 -> 2.6 ms).
//
// Average pooling follows torch's cpu_avg_pool and cpu_avg_pool_backward (AvgPoolKernel.cpp)
// the same way: each window clipped to the input (padding adds zeros), summed in row-major
// order in T (float32 sums in float32, as torch's opmath type), then divided by the core's
// divisor of that window; the backward adds dL/dy / divisor to each element of the window,
// windows in output order. LeNet's two AvgPool2d(2) layers took 190 ms of a 1.2 s profile
// composed (window sums, divisions, and a fold for the gradient).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kernels.hpp"
#include "thread_pool.hpp"
#include "vector_pool.hpp"

namespace hetero::cpu::kernels {
namespace {

template <class T>
void max_forward(const Pool2dArgs& a, const Pool2dViews& v) {
  const T* x = data_of<T>(v.x) + v.x.offset;
  T* y = data_of<T>(v.y) + v.y.offset;
  std::int64_t* index = data_of<std::int64_t>(v.indices) + v.indices.offset;
  const std::int64_t in_plane = a.h * a.w, out_plane = a.oh * a.ow;
  // Rows in vectors (vector_pool.hpp) where every window has an in-bounds column.
  const bool rows_in_vectors =
      a.dh == 1 && a.dw == 1 && a.pw < a.kw && a.ow > 0 && (a.ow - 1) * a.sw - a.pw < a.w;
  parallel_each(a.n * a.c, [&](std::int64_t p) {
    const T* in = x + p * in_plane;
    T* out = y + p * out_plane;
    std::int64_t* idx = index + p * out_plane;
    for (std::int64_t i = 0; i < a.oh; ++i) {
      std::int64_t h0 = i * a.sh - a.ph;
      const std::int64_t h1 = std::min(h0 + (a.kh - 1) * a.dh + 1, a.h);
      while (h0 < 0) h0 += a.dh;
      if (rows_in_vectors && h0 < h1 &&
          vec::max_pool_row(dtype_of<T>, in, a.w, h0, h1, a.kw, a.sw, a.pw, a.ow, out + i * a.ow,
                            idx + i * a.ow))
        continue;
      for (std::int64_t j = 0; j < a.ow; ++j) {
        std::int64_t w0 = j * a.sw - a.pw;
        const std::int64_t w1 = std::min(w0 + (a.kw - 1) * a.dw + 1, a.w);
        while (w0 < 0) w0 += a.dw;
        T best = -std::numeric_limits<T>::infinity();
        std::int64_t where = h0 < h1 && w0 < w1 ? h0 * a.w + w0 : -1;
        for (std::int64_t r = h0; r < h1; r += a.dh)
          for (std::int64_t s = w0; s < w1; s += a.dw) {
            const T value = in[r * a.w + s];
            if (value > best || std::isnan(value)) {
              best = value;
              where = r * a.w + s;
            }
          }
        out[i * a.ow + j] = best;
        idx[i * a.ow + j] = where;
      }
    }
  });
}

template <class T>
void max_backward(const Pool2dArgs& a, const Pool2dViews& v) {
  T* dx = data_of<T>(v.x) + v.x.offset;
  const T* dy = data_of<T>(v.y) + v.y.offset;
  const std::int64_t* index = data_of<std::int64_t>(v.indices) + v.indices.offset;
  const std::int64_t in_plane = a.h * a.w, out_plane = a.oh * a.ow;
  parallel_each(a.n * a.c, [&](std::int64_t p) {
    T* g = dx + p * in_plane;
    std::fill(g, g + in_plane, T(0));
    const T* gy = dy + p * out_plane;
    const std::int64_t* idx = index + p * out_plane;
    for (std::int64_t k = 0; k < out_plane; ++k)
      if (idx[k] >= 0 && idx[k] < in_plane) g[idx[k]] += gy[k];
  });
}

// The input rows [r0, r1) and columns [s0, s1) of output (i, j)'s average pooling window.
struct AvgWindow {
  std::int64_t r0, r1, s0, s1;
};
AvgWindow avg_window(const Pool2dArgs& a, std::int64_t i, std::int64_t j) {
  const std::int64_t h0 = i * a.sh - a.ph, w0 = j * a.sw - a.pw;
  return {std::max<std::int64_t>(h0, 0), std::min(h0 + a.kh, a.h), std::max<std::int64_t>(w0, 0),
          std::min(w0 + a.kw, a.w)};
}

template <class T>
void avg_forward(const Pool2dArgs& a, const Pool2dViews& v) {
  const T* x = data_of<T>(v.x) + v.x.offset;
  T* y = data_of<T>(v.y) + v.y.offset;
  const T* divisor = data_of<T>(v.divisor) + v.divisor.offset;
  const std::int64_t in_plane = a.h * a.w, out_plane = a.oh * a.ow;
  parallel_each(a.n * a.c, [&](std::int64_t p) {
    const T* in = x + p * in_plane;
    T* out = y + p * out_plane;
    for (std::int64_t i = 0; i < a.oh; ++i)
      for (std::int64_t j = 0; j < a.ow; ++j) {
        const AvgWindow win = avg_window(a, i, j);
        T sum = 0;
        for (std::int64_t r = win.r0; r < win.r1; ++r)
          for (std::int64_t s = win.s0; s < win.s1; ++s) sum += in[r * a.w + s];
        const bool empty = win.r0 >= win.r1 || win.s0 >= win.s1;  // as torch's: 0, not 0 / 0
        out[i * a.ow + j] = empty ? T(0) : sum / divisor[i * a.ow + j];
      }
  });
}

template <class T>
void avg_backward(const Pool2dArgs& a, const Pool2dViews& v) {
  T* dx = data_of<T>(v.x) + v.x.offset;
  const T* dy = data_of<T>(v.y) + v.y.offset;
  const T* divisor = data_of<T>(v.divisor) + v.divisor.offset;
  const std::int64_t in_plane = a.h * a.w, out_plane = a.oh * a.ow;
  parallel_each(a.n * a.c, [&](std::int64_t p) {
    T* g = dx + p * in_plane;
    std::fill(g, g + in_plane, T(0));
    const T* gy = dy + p * out_plane;
    for (std::int64_t i = 0; i < a.oh; ++i)
      for (std::int64_t j = 0; j < a.ow; ++j) {
        const AvgWindow win = avg_window(a, i, j);
        if (win.r0 >= win.r1 || win.s0 >= win.s1) continue;
        const T delta = gy[i * a.ow + j] / divisor[i * a.ow + j];
        for (std::int64_t r = win.r0; r < win.r1; ++r)
          for (std::int64_t s = win.s0; s < win.s1; ++s) g[r * a.w + s] += delta;
      }
  });
}

}  // namespace

void pool2d(Pool2dOp op, const Pool2dArgs& args, const Pool2dViews& views) {
  const auto run = [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case Pool2dOp::max_forward:
        return max_forward<T>(args, views);
      case Pool2dOp::max_backward:
        return max_backward<T>(args, views);
      case Pool2dOp::avg_forward:
        return avg_forward<T>(args, views);
      case Pool2dOp::avg_backward:
        return avg_backward<T>(args, views);
    }
  };
  switch (views.x.dtype) {
    case DType::float32:
      return run(float{});
    case DType::float64:
      return run(double{});
    default:
      throw NotImplementedError(std::string(op_name(op)) +
                                ": the cpu kernels take float32 and float64, not " +
                                std::string(dtype_name(views.x.dtype)));
  }
}

}  // namespace hetero::cpu::kernels
