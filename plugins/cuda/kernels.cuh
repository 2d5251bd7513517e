// SPDX-License-Identifier: Apache-2.0
#pragma once
// Device-side helpers shared by the .cu files: dtype dispatch, offset calculation for
// up to N strided operands, launch configuration.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda/std/tuple>

#include <hetero/error.hpp>
#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/dtype_dispatch.hpp>
#include <hetero/sdk/kernel_args.hpp>
#include <hetero/sdk/merge_dims.hpp>

#include "cuda_check.hpp"

namespace hetero::cuda::kernels {

constexpr int kThreads = 256;

using ::hetero::data_of;
template <class F>
decltype(auto) dispatch(DType t, F&& f) {
  return dispatch_dtype(t, static_cast<F&&>(f));
}

/// The first element of a view: its buffer's device address plus its element offset.
template <class T>
T* element_pointer(const StridedView& v) {
  return data_of<T>(v) + v.offset;
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

/// OffsetCalc for views that share views[0]'s shape, after hetero::merge_dims (fewer
/// dimensions: fewer divisions per element where the views are not all contiguous).
template <int N>
OffsetCalc<N> make_offset_calc(const StridedView* const (&views)[N]) {
  const auto merged = merged_dims<N>(views);
  OffsetCalc<N> c;
  c.ndim = merged[0].ndim;
  for (int d = 0; d < c.ndim; ++d) c.shape[d] = merged[0].shape[d];
  for (int k = 0; k < N; ++k) {
    c.base[k] = merged[k].offset;
    c.contiguous = c.contiguous && merged[k].is_contiguous();
    for (int d = 0; d < c.ndim; ++d) c.strides[k][d] = merged[k].strides[d];
  }
  return c;
}

/// Grid size for a grid-stride loop over n elements.
inline unsigned grid_for(std::int64_t n) {
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<std::int64_t>(blocks, 1, 65535));
}

/// Contiguous element-wise maps at memory bandwidth: each thread reads and writes one
/// pack of N elements per operand with 16-byte (or N * sizeof) vector accesses, the last
/// partial pack element by element. map_vector_width() picks N from the widest operand and
/// falls back to 1 when a pointer is not aligned to its pack.
template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

template <class... T>
int map_vector_width(const T*... pointers) {
  constexpr std::size_t widest = std::max({sizeof(T)...});
  constexpr int n = static_cast<int>(16 / widest) > 0 ? static_cast<int>(16 / widest) : 1;
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(pointers) % (sizeof(T) * n) == 0) && ...);
  return aligned ? n : 1;
}

/// out[i] = f(a[i]) (or f() with no input) for i in [0, n).
template <int N, class F, class Out, class... In>
__global__ void map_kernel(F f, std::int64_t n, Out* __restrict__ out,
                           const In* __restrict__... in) {
  const std::int64_t first = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * N;
  if (first + N <= n) {
    Pack<Out, N> r;
    if constexpr (sizeof...(In) == 0) {
      for (int k = 0; k < N; ++k) r.v[k] = f();
    } else {
      const ::cuda::std::tuple<Pack<In, N>...> packs{
          *reinterpret_cast<const Pack<In, N>*>(in + first)...};
      for (int k = 0; k < N; ++k)
        r.v[k] = ::cuda::std::apply([&](const auto&... p) { return f(p.v[k]...); }, packs);
    }
    *reinterpret_cast<Pack<Out, N>*>(out + first) = r;
  } else {
    for (std::int64_t i = first; i < n; ++i) out[i] = f(in[i]...);
  }
}

/// Launches map_kernel over n contiguous elements with the widest vector the pointers allow.
template <class F, class Out, class... In>
void launch_map(cudaStream_t stream, F f, std::int64_t n, Out* out, const In*... in) {
  auto launch = [&](auto width) {
    constexpr int N = decltype(width)::value;
    const std::int64_t packs = (n + N - 1) / N;
    const auto blocks = static_cast<unsigned>((packs + kThreads - 1) / kThreads);
    map_kernel<N><<<blocks, kThreads, 0, stream>>>(f, n, out, in...);
  };
  switch (map_vector_width(out, in...)) {
    case 16:
      launch(std::integral_constant<int, 16>{});
      break;
    case 8:
      launch(std::integral_constant<int, 8>{});
      break;
    case 4:
      launch(std::integral_constant<int, 4>{});
      break;
    case 2:
      launch(std::integral_constant<int, 2>{});
      break;
    default:
      launch(std::integral_constant<int, 1>{});
      break;
  }
}

/// Grid-stride loop over [0, n).
#define HETERO_GRID_STRIDE_LOOP(i, n)                                                              \
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)

}  // namespace hetero::cuda::kernels
