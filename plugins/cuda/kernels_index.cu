// SPDX-License-Identifier: Apache-2.0
// gather and scatter_add (Backend::gather / scatter_add, interface minor 6). gather: one
// thread per output element in a grid-stride loop. scatter_add: one thread per fiber (a
// position of the dimensions other than dim), walking its fiber in order, so that no two
// threads write one element and the sums are deterministic without atomics (the contract's
// order; PyTorch's cuda scatter_add uses atomics and is not deterministic).
#include <hetero/sdk/elementwise_ops.hpp>

#include "kernels.cuh"
#include "kernels.hpp"

namespace hetero::cuda::kernels {
namespace {

template <class T>
__global__ void gather_kernel(const T* src, const std::int64_t* index, T* out, OffsetCalc<3> calc,
                              std::int64_t dim_stride, std::int64_t n) {
  HETERO_GRID_STRIDE_LOOP(i, n) {
    std::int64_t off[3];
    calc.offsets(i, off);
    out[off[0]] = src[off[2] + index[off[1]] * dim_stride];
  }
}

template <class T>
__global__ void scatter_add_kernel(T* out, const std::int64_t* index, const T* src,
                                   OffsetCalc<3> calc, std::int64_t length, std::int64_t out_stride,
                                   std::int64_t index_stride, std::int64_t src_stride,
                                   std::int64_t fibers) {
  HETERO_GRID_STRIDE_LOOP(f, fibers) {
    std::int64_t off[3];
    calc.offsets(f, off);
    for (std::int64_t i = 0; i < length; ++i) {
      T& target = out[off[0] + index[off[1] + i * index_stride] * out_stride];
      target = scatter_add_element(target, src[off[2] + i * src_stride]);
    }
  }
}

}  // namespace

void gather(const StridedView& src, const StridedView& index, int dim, const StridedView& out,
            cudaStream_t stream) {
  const std::int64_t n = out.numel();
  if (n == 0) return;
  const GatherViews g = gather_views(src, out, dim);
  const StridedView* views[3] = {&out, &index, &g.start};
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    gather_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
        data_of<T>(src), data_of<std::int64_t>(index), data_of<T>(out), make_offset_calc(views),
        g.dim_stride, n);
    HETERO_CUDA_CHECK_LAUNCH();
  });
}

void scatter_add(const StridedView& out, const StridedView& index, int dim, const StridedView& src,
                 cudaStream_t stream) {
  const ScatterFibers f = scatter_fibers(out, index, src, dim);
  const std::int64_t fibers = f.out.numel();
  if (fibers == 0 || f.length == 0) return;
  const StridedView* views[3] = {&f.out, &f.index, &f.src};
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    scatter_add_kernel<T><<<grid_for(fibers), kThreads, 0, stream>>>(
        data_of<T>(out), data_of<std::int64_t>(index), data_of<T>(src), make_offset_calc(views),
        f.length, f.out_stride, f.index_stride, f.src_stride, fibers);
    HETERO_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace hetero::cuda::kernels
