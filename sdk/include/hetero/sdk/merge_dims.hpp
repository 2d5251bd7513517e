// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file merge_dims.hpp
/// hetero::merge_dims — the fewest dimensions that walk some views' elements in the same
/// order, so that kernels index contiguous operands by one stride (as TensorIterator's
/// coalesce_dimensions in PyTorch). Header-only; for backends.
#include <array>
#include <cstddef>

#include <hetero/sdk/kernel_args.hpp>

namespace hetero {

/// Rewrites `views` (all of views[0]'s shape, e.g. a kernel's operands after broadcasting)
/// in place: dimensions of size 1 are dropped, and neighbours d, d + 1 merge into one where
/// every view has strides[d] == strides[d + 1] * shape[d + 1]. Element i in C order is then
/// the same element of every view as before; offsets and buffers are unchanged, and a dense
/// C-order view becomes one dimension of stride 1. A view of one element ends with ndim 0.
/// Not for views of different shapes.
template <std::size_t N>
void merge_dims(const std::array<StridedView*, N>& views) noexcept {
  const StridedView& v0 = *views[0];
  const int ndim = v0.ndim;
  const std::array<std::int64_t, kMaxDims> shape = v0.shape;
  int nd = 0;
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue;
    bool mergeable = nd > 0;
    for (std::size_t k = 0; k < N && mergeable; ++k)
      mergeable = views[k]->strides[nd - 1] == views[k]->strides[d] * shape[d];
    if (mergeable) {
      for (std::size_t k = 0; k < N; ++k) {
        views[k]->shape[nd - 1] *= shape[d];
        views[k]->strides[nd - 1] = views[k]->strides[d];
      }
      continue;
    }
    for (std::size_t k = 0; k < N; ++k) {
      views[k]->shape[nd] = shape[d];
      views[k]->strides[nd] = views[k]->strides[d];
    }
    ++nd;
  }
  for (std::size_t k = 0; k < N; ++k) views[k]->ndim = nd;
}

/// merge_dims on copies of *views[0], ..., *views[N - 1] (`views`: anything indexable that
/// gives N pointers to StridedView); returns the merged copies and leaves the views alone.
template <std::size_t N, class Pointers>
std::array<StridedView, N> merged_dims(const Pointers& views) noexcept {
  std::array<StridedView, N> merged;
  std::array<StridedView*, N> targets;
  for (std::size_t k = 0; k < N; ++k) {
    merged[k] = *views[k];
    targets[k] = &merged[k];
  }
  merge_dims(targets);
  return merged;
}

}  // namespace hetero
