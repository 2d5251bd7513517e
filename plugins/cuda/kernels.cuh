#pragma once
// Device-side helpers shared by the .cu files: dtype dispatch, offset calculation for
// up to N strided operands, launch configuration.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include <hetero/error.hpp>
#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/dtype_dispatch.hpp>
#include <hetero/sdk/kernel_args.hpp>

#include "cuda_check.hpp"

namespace hetero::cuda::kernels {

constexpr int kThreads = 256;

using ::hetero::data_of;
template <class F>
decltype(auto) dispatch(DType t, F&& f) {
  return dispatch_dtype(t, static_cast<F&&>(f));
}

/// Element offsets of N views of one shape, from a linear index in C order. Passed to
/// kernels by value. `contiguous` is set when every view is dense in C order, so the
/// offset is base + i.
template <int N>
struct OffsetCalc {
  int ndim = 0;
  bool contiguous = true;
  std::int64_t shape[kMaxDims] = {};
  std::int64_t strides[N][kMaxDims] = {};
  std::int64_t base[N] = {};

  __device__ void offsets(std::int64_t linear, std::int64_t (&out)[N]) const {
    for (int k = 0; k < N; ++k) out[k] = base[k];
    if (contiguous) {
      for (int k = 0; k < N; ++k) out[k] += linear;
      return;
    }
    for (int d = ndim - 1; d >= 0; --d) {
      const std::int64_t i = linear % shape[d];
      linear /= shape[d];
      for (int k = 0; k < N; ++k) out[k] += i * strides[k][d];
    }
  }
};

/// OffsetCalc for views that share views[0]'s shape.
template <int N>
OffsetCalc<N> make_offset_calc(const StridedView* const (&views)[N]) {
  OffsetCalc<N> c;
  c.ndim = views[0]->ndim;
  for (int d = 0; d < c.ndim; ++d) c.shape[d] = views[0]->shape[d];
  for (int k = 0; k < N; ++k) {
    c.base[k] = views[k]->offset;
    c.contiguous = c.contiguous && views[k]->is_contiguous();
    for (int d = 0; d < c.ndim; ++d) c.strides[k][d] = views[k]->strides[d];
  }
  return c;
}

/// Grid size for a grid-stride loop over n elements.
inline unsigned grid_for(std::int64_t n) {
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<std::int64_t>(blocks, 1, 65535));
}

/// Grid-stride loop over [0, n).
#define HETERO_GRID_STRIDE_LOOP(i, n)                                                        \
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; \
       i < (n); i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)

}  // namespace hetero::cuda::kernels
