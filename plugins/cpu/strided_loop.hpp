// SPDX-License-Identifier: Apache-2.0
#pragma once
// Iteration over N strided operands of one shape, row by row: dimensions that are
// contiguous for every operand are merged (hetero::merge_dims), then
// `f(offsets, count, inner_strides)` is called once per innermost row with element offsets
// of the row start. Rows are spread over the backend's ThreadPool when there are enough
// elements.
#include <algorithm>
#include <array>
#include <cstdint>

#include <hetero/sdk/kernel_args.hpp>
#include <hetero/sdk/merge_dims.hpp>

#include "thread_pool.hpp"

namespace hetero::cpu {

/// Elements below which a loop stays on one thread.
inline constexpr std::int64_t kParallelThreshold = 1 << 18;

/// Runs fn(begin, end) over [0, n) on the kernel pool when n * work_per_item is large
/// enough, else serially.
template <class F>
void parallel_range(std::int64_t n, std::int64_t work_per_item, F&& fn) {
  if (n * work_per_item >= kParallelThreshold)
    parallel_ranges(n, fn);
  else
    fn(0, n);
}

template <int N>
struct LoopShape {
  int ndim = 0;
  std::array<std::int64_t, kMaxDims> shape{};
  std::array<std::array<std::int64_t, kMaxDims>, N> strides{};
};

/// The loop shape of views of equal shape (taken from views[0]): merge_dims of them, and a
/// scalar as one row of one element.
template <int N>
LoopShape<N> make_loop(const std::array<const StridedView*, N>& views) {
  const auto merged = merged_dims<N>(views);
  LoopShape<N> l;
  l.ndim = merged[0].ndim;
  l.shape = merged[0].shape;
  for (int k = 0; k < N; ++k) l.strides[k] = merged[k].strides;
  if (l.ndim == 0) {  // a scalar: one row of one element
    l.ndim = 1;
    l.shape[0] = 1;
    for (int k = 0; k < N; ++k) l.strides[k][0] = 0;
  }
  return l;
}

/// Calls f(std::array<int64_t, N> offsets, int64_t count, std::array<int64_t, N> inner)
/// for each row, in row-major order when !allow_parallel. Offsets include each view's
/// own offset. `work_per_element` is what f does per element, in units of one element's
/// memory traffic (a reduction's output reads its whole reduced range): it decides
/// whether the loop is worth spreading over threads.
template <int N, class F>
void for_each_row(const std::array<const StridedView*, N>& views, F&& f, bool allow_parallel = true,
                  std::int64_t work_per_element = 1) {
  const LoopShape<N> l = make_loop<N>(views);
  const int inner_dim = l.ndim - 1;
  const std::int64_t count = l.shape[inner_dim];
  if (count == 0) return;
  std::int64_t rows = 1;
  for (int d = 0; d < inner_dim; ++d) rows *= l.shape[d];
  if (rows == 0) return;
  std::array<std::int64_t, N> inner{};
  for (int k = 0; k < N; ++k) inner[k] = l.strides[k][inner_dim];
  // Elements [start, start + length) of row r.
  auto row_part = [&](std::int64_t r, std::int64_t start, std::int64_t length) {
    std::array<std::int64_t, N> off{};
    for (int k = 0; k < N; ++k) off[k] = views[k]->offset + start * inner[k];
    std::int64_t rem = r;
    for (int d = inner_dim - 1; d >= 0; --d) {
      const std::int64_t i = rem % l.shape[d];
      rem /= l.shape[d];
      for (int k = 0; k < N; ++k) off[k] += i * l.strides[k][d];
    }
    f(off, length, inner);
  };
  // Whole rows [begin, end) in order: the first row's offsets by division, then an odometer
  // over the outer dimensions (an add per operand per row, a carry now and then), so that
  // short rows (im2col's, 10 elements) do not pay a division per dimension each.
  auto whole_rows = [&](std::int64_t begin, std::int64_t end) {
    if (begin >= end) return;
    std::array<std::int64_t, kMaxDims> at{};
    std::array<std::int64_t, N> off{};
    for (int k = 0; k < N; ++k) off[k] = views[k]->offset;
    std::int64_t rem = begin;
    for (int d = inner_dim - 1; d >= 0; --d) {
      at[d] = rem % l.shape[d];
      rem /= l.shape[d];
      for (int k = 0; k < N; ++k) off[k] += at[d] * l.strides[k][d];
    }
    for (std::int64_t r = begin;;) {
      f(off, count, inner);
      if (++r == end) return;
      for (int d = inner_dim - 1; d >= 0; --d) {
        for (int k = 0; k < N; ++k) off[k] += l.strides[k][d];
        if (++at[d] < l.shape[d]) break;
        for (int k = 0; k < N; ++k) off[k] -= l.shape[d] * l.strides[k][d];
        at[d] = 0;
      }
    }
  };
  const std::int64_t threads = kernel_threads();
  if (allow_parallel && threads > 1 && rows < threads &&
      rows * count * work_per_element >= kParallelThreshold) {
    // Fewer rows than threads (a dense tensor merges into one row): split rows in pieces.
    parallel_range(rows * threads, count / threads * work_per_element,
                   [&](std::int64_t begin, std::int64_t end) {
                     for (std::int64_t p = begin; p < end; ++p) {
                       const std::int64_t r = p / threads, q = p % threads;
                       const std::int64_t start = count * q / threads,
                                          stop = count * (q + 1) / threads;
                       if (stop > start) row_part(r, start, stop - start);
                     }
                   });
    return;
  }
  if (allow_parallel)
    parallel_range(rows, count * work_per_element, whole_rows);
  else
    whole_rows(0, rows);
}

/// Calls f(offset, count, inner_stride) serially for the pieces of rows that hold elements
/// [begin, end) of `view` in C order (element offsets include the view's offset): a range
/// of a reduction's sub-space, for splitting one reduction over threads.
template <class F>
void for_each_row_range(const StridedView& view, std::int64_t begin, std::int64_t end, F&& f) {
  const LoopShape<1> l = make_loop<1>({&view});
  const int inner_dim = l.ndim - 1;
  const std::int64_t count = l.shape[inner_dim], inner = l.strides[0][inner_dim];
  for (std::int64_t e = begin; e < end && count > 0;) {
    const std::int64_t within = e % count;
    const std::int64_t length = std::min(count - within, end - e);
    std::int64_t off = view.offset + within * inner, rem = e / count;
    for (int d = inner_dim - 1; d >= 0; --d) {
      off += (rem % l.shape[d]) * l.strides[0][d];
      rem /= l.shape[d];
    }
    f(off, length, inner);
    e += length;
  }
}

}  // namespace hetero::cpu
