// SPDX-License-Identifier: Apache-2.0
// The fused softmax / log_softmax (Backend::softmax). Each line along `dim` is read three
// times -- its maximum, the sum of exp(x - max), the result -- instead of the five kernels
// and three temporaries of the composition. Dense lines of float32/float64 go to the vector
// kernels (Note [Vector kernels]); strided lines lying side by side (softmax over a
// non-last dimension) are walked a block of lines at a time; the rest runs the line loop,
// in the dtype's compute type (float for float16/bfloat16) with the sum in double.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include <hetero/sdk/elementwise_ops.hpp>
#include <hetero/sdk/half.hpp>

#include "kernels.hpp"
#include "vector_kernels.hpp"

namespace hetero::cpu::kernels {
namespace {

/// The view without dimension `dim` (the space of lines), and that dimension's size and
/// stride.
struct Lines {
  StridedView outer;
  std::int64_t length = 0;
  std::int64_t stride = 0;
};

Lines lines_of(const StridedView& v, int dim) {
  Lines l{v, v.shape[dim], v.strides[dim]};
  l.outer.ndim = v.ndim - 1;
  for (int k = dim; k < l.outer.ndim; ++k) {
    l.outer.shape[k] = v.shape[k + 1];
    l.outer.strides[k] = v.strides[k + 1];
  }
  return l;
}

template <class T>
void softmax_line(bool log, const T* x, std::int64_t xs, T* y, std::int64_t ys, std::int64_t n) {
  using C = compute_type_t<T>;
  if (xs == 1 && ys == 1 &&
      vec::softmax(log ? SoftmaxOp::log_softmax : SoftmaxOp::softmax, dtype_of<T>, x, y, n))
    return;
  C max = -std::numeric_limits<C>::infinity();
  for (std::int64_t k = 0; k < n; ++k) {
    const C v = static_cast<C>(x[k * xs]);
    if (v != v) {
      for (std::int64_t j = 0; j < n; ++j) y[j * ys] = T(std::numeric_limits<C>::quiet_NaN());
      return;
    }
    max = v > max ? v : max;
  }
  double sum = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const C e = std::exp(static_cast<C>(x[k * xs]) - max);
    if constexpr (std::is_same_v<T, C>)
      if (!log) y[k * ys] = e;  // kept for the division (16-bit types compute it again)
    sum += static_cast<double>(e);
  }
  if (log) {  // (x - max) - log(sum), as torch: max + log(sum) rounded first lost x - max
    const C log_sum = static_cast<C>(std::log(sum));
    for (std::int64_t k = 0; k < n; ++k) y[k * ys] = T((static_cast<C>(x[k * xs]) - max) - log_sum);
    return;
  }
  const C total = static_cast<C>(sum);
  for (std::int64_t k = 0; k < n; ++k) {
    C e;
    if constexpr (std::is_same_v<T, C>)
      e = y[k * ys];
    else
      e = std::exp(static_cast<C>(x[k * xs]) - max);
    y[k * ys] = T(e / total);
  }
}

template <BinaryOp Op, class T>
void binary_run(const T* a, const T* b, T* out, std::int64_t n) {
  if (!vec::binary(Op, dtype_of<T>, a, 1, b, 1, out, n))
    for (std::int64_t j = 0; j < n; ++j) out[j] = binary_element<Op>(a[j], b[j]);
}

// Lines side by side (softmax(x, 0) of a row-major matrix: each line strided, neighbouring
// lines adjacent): a block of kBlock lines is walked together, row by row of contiguous
// elements, in the same three passes; float32 and float64 only (16-bit types would round
// x - max before exp). `x` and `y` point at line 0 of the block's position.
template <class T>
void softmax_side_by_side(bool log, const T* x, std::int64_t xs, T* y, std::int64_t ys,
                          std::int64_t length, std::int64_t width) {
  constexpr std::int64_t kBlock = 256;
  std::array<T, kBlock> max, tmp;
  std::array<double, kBlock> sum;
  for (std::int64_t j0 = 0; j0 < width; j0 += kBlock) {
    const std::int64_t w = std::min(kBlock, width - j0);
    std::copy(x + j0, x + j0 + w, max.data());
    for (std::int64_t k = 1; k < length; ++k)  // NaN-propagating: a NaN line stays NaN
      binary_run<BinaryOp::maximum>(x + k * xs + j0, max.data(), max.data(), w);
    std::fill(sum.begin(), sum.begin() + w, 0.0);
    for (std::int64_t k = 0; k < length; ++k) {
      T* e = log ? tmp.data() : y + k * ys + j0;
      binary_run<BinaryOp::sub>(x + k * xs + j0, max.data(), e, w);
      if (!vec::unary(UnaryOp::exp, dtype_of<T>, e, e, w))
        for (std::int64_t j = 0; j < w; ++j) e[j] = std::exp(e[j]);
      if (!vec::accumulate(dtype_of<T>, e, sum.data(), w))
        for (std::int64_t j = 0; j < w; ++j) sum[j] += static_cast<double>(e[j]);
    }
    for (std::int64_t j = 0; j < w; ++j)  // softmax: the divisor; log: log(sum)
      tmp[j] = static_cast<T>(log ? std::log(sum[j]) : sum[j]);
    for (std::int64_t k = 0; k < length; ++k) {
      T* out = y + k * ys + j0;
      if (log) {  // (x - max) - log(sum), each rounded (as torch)
        binary_run<BinaryOp::sub>(x + k * xs + j0, max.data(), out, w);
        binary_run<BinaryOp::sub>(out, tmp.data(), out, w);
      } else {
        binary_run<BinaryOp::div>(out, tmp.data(), out, w);
      }
    }
  }
}

// softmax_side_by_side over the lines of `li`/`lo` when their outer views end in a
// dimension of stride 1 in both (and the lines are strided); false otherwise.
template <class T>
bool try_side_by_side(bool log, const T* src, const Lines& li, T* dst, const Lines& lo) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    return false;
  } else {
    const int last = li.outer.ndim - 1;
    if (last < 0 || li.stride == 1 || li.outer.strides[last] != 1 || lo.outer.strides[last] != 1)
      return false;
    StridedView rest_in = li.outer, rest_out = lo.outer;  // positions of the blocks' rows
    rest_in.ndim = rest_out.ndim = last;
    const std::int64_t width = li.outer.shape[last], positions = rest_in.numel();
    constexpr std::int64_t kPiece = 256;  // columns per parallel piece (one block)
    const std::int64_t pieces = (width + kPiece - 1) / kPiece;
    parallel_range(positions * pieces, li.length * kPiece, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t t = b; t < e; ++t) {
        const std::int64_t p = t / pieces, j0 = (t % pieces) * kPiece;
        softmax_side_by_side(log, src + rest_in.element_offset(p) + j0, li.stride,
                             dst + rest_out.element_offset(p) + j0, lo.stride, li.length,
                             std::min(kPiece, width - j0));
      }
    });
    return true;
  }
}

}  // namespace

void softmax(SoftmaxOp op, const StridedView& in, const StridedView& out, int dim) {
  const bool log = op == SoftmaxOp::log_softmax;
  dispatch(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_floating_storage_v<T>) {
      const Lines li = lines_of(in, dim), lo = lines_of(out, dim);
      const T* src = data_of<T>(in);
      T* dst = data_of<T>(out);
      if (try_side_by_side(log, src, li, dst, lo)) return;
      for_each_row<2>(
          {&li.outer, &lo.outer},
          [&](auto off, std::int64_t n, auto st) {
            for (std::int64_t i = 0; i < n; ++i)
              softmax_line(log, src + off[0] + i * st[0], li.stride, dst + off[1] + i * st[1],
                           lo.stride, li.length);
          },
          /*allow_parallel=*/true, /*work_per_element=*/li.length);
    }
  });
}

}  // namespace hetero::cpu::kernels
