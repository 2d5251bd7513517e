// SPDX-License-Identifier: Apache-2.0
#pragma once
// Host-side launchers of the CUDA kernels (the .cu files). Each queues its kernel on
// `stream` and returns without waiting; the caller has made the views' device current.
// Views hold device pointers in Buffer::handle(). The core calls only for ops and dtypes the
// tables define (Backend::supports' default), so an op outside them is an InternalError;
// launch errors are thrown through HETERO_CUDA_CHECK_LAUNCH.
#include <cstdint>

#include <cuda_runtime_api.h>

#include <hetero/sdk/kernel_args.hpp>

#include "cuda_caching_allocator.hpp"

namespace hetero::cuda::kernels {

/// Backend::fill.
void fill(const StridedView& out, Scalar value, cudaStream_t stream);
/// Backend::cast, also the strided copy (equal shapes; dtypes may differ).
void convert(const StridedView& src, const StridedView& dst, cudaStream_t stream);
/// Backend::unary.
void unary(UnaryOp op, const StridedView& in, const StridedView& out, cudaStream_t stream);
/// Backend::binary.
void binary(BinaryOp op, const StridedView& a, const StridedView& b, const StridedView& out,
            cudaStream_t stream);
/// Backend::ternary (where; every dtype).
void ternary(TernaryOp op, const StridedView& c, const StridedView& x, const StridedView& y,
             const StridedView& out, cudaStream_t stream);
/// Backend::reduce (paths in kernels_reduce.cu: CUB for whole inputs and rows, a coalesced
/// kernel for columns, one block per output otherwise). Scratch memory comes from `pool`
/// (the device's), freed in the order of `stream`.
void reduce(ReductionOp op, const StridedView& in, const StridedView& out,
            CudaCachingAllocator& pool, cudaStream_t stream);
/// Backend::gather (every dtype; kernels_index.cu).
void gather(const StridedView& src, const StridedView& index, int dim, const StridedView& out,
            cudaStream_t stream);
/// Backend::scatter_add (every dtype): one thread per fiber, deterministic.
void scatter_add(const StridedView& out, const StridedView& index, int dim, const StridedView& src,
                 cudaStream_t stream);
/// Backend::random on the counter-based stream of <hetero/sdk/counter_rng.hpp>.
void random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
            std::uint64_t offset, cudaStream_t stream);

}  // namespace hetero::cuda::kernels
