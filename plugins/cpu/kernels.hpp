// SPDX-License-Identifier: Apache-2.0
#pragma once
// The CPU kernels (host loops over StridedView). Preconditions were checked by the core.
#include <cstdint>

#include <hetero/error.hpp>
#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/dtype_dispatch.hpp>
#include <hetero/sdk/kernel_args.hpp>
#include <utility>

#include "strided_loop.hpp"

namespace hetero::cpu {

using ::hetero::data_of;
/// Dtype dispatch of every CPU kernel (see <hetero/sdk/dtype_dispatch.hpp>).
template <class F>
decltype(auto) dispatch(DType t, F&& f) {
  return dispatch_dtype(t, std::forward<F>(f));
}

namespace kernels {
void fill(const StridedView& out, Scalar value);
/// cast (also the strided copy): element conversion between any two dtypes.
void convert(const StridedView& src, const StridedView& dst);
void unary(UnaryOp op, const StridedView& in, const StridedView& out);
void binary(BinaryOp op, const StridedView& a, const StridedView& b, const StridedView& out);
/// Backend::ternary (where): every dtype, operands broadcast to out's shape.
void ternary(TernaryOp op, const StridedView& c, const StridedView& x, const StridedView& y,
             const StridedView& out);
/// Backend::reduce: `out` of in's dtype, or int64 for argmax and for the widening sums of
/// int8, uint8 and int32, or float32 for sum and mean of float16 and bfloat16
/// (CpuBackend::reduces_into).
void reduce(ReductionOp op, const StridedView& in, const StridedView& out);
/// Fused softmax / log_softmax along `dim` (Backend::softmax): each line in three passes
/// (maximum, sum of exponentials in double, result), lines spread over the kernel threads.
void softmax(SoftmaxOp op, const StridedView& in, const StridedView& out, int dim);
void random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
            std::uint64_t offset);
/// Backend::conv2d on dense float32, float64, float16 or bfloat16 operands: float32 and
/// bfloat16 on oneDNN where it takes them (Note [Convolution on oneDNN]); else chunks of
/// images on the kernel threads, each an im2col + GEMM in cache (Note [Convolution kernels on
/// the cpu], kernels_conv.cpp), the 16-bit dtypes in float32 and rounded once. Throws
/// NotImplementedError for other dtypes.
void conv2d(Conv2dOp op, const Conv2dArgs& args, const StridedView& a, const StridedView& b,
            const StridedView& out);
/// Backend::conv2d_bias on the same dtypes: oneDNN's convolution with its bias (float32,
/// bfloat16), else conv2d's forward and the bias added per output channel in the same call
/// (16-bit: in float32, before the one rounding).
void conv2d_bias(const Conv2dArgs& args, const StridedView& input, const StridedView& weight,
                 const StridedView& bias, const StridedView& out);
/// Backend::conv3d on dense float32 operands: oneDNN's native 3-d primitives (Note
/// [Convolution on oneDNN]); the backend offers it only where oneDNN is in use
/// (CpuBackend::supports). Throws NotImplementedError for another dtype or where oneDNN has
/// no primitive for the geometry.
void conv3d(Conv3dOp op, const Conv3dArgs& args, const StridedView& a, const StridedView& b,
            const StridedView& out);
/// Backend::batch_norm on dense float32/float64 operands: channels over the kernel threads,
/// each in two passes (Note [Batch norm kernels on the cpu], kernels_batch_norm.cpp).
void batch_norm(BatchNormOp op, const BatchNormArgs& args, const BatchNormViews& views);
/// Backend::batch_norm's rule in double, one element at a time, on float32/float64 (single
/// thread): the unit tests' yardstick.
void batch_norm_reference(BatchNormOp op, const BatchNormArgs& args, const BatchNormViews& views);
/// Backend::pool2d (max pooling and its gradient) on dense float32/float64 operands: planes
/// over the kernel threads (Note [Max pooling on the cpu], kernels_pool.cpp).
void pool2d(Pool2dOp op, const Pool2dArgs& args, const Pool2dViews& views);
/// Backend::gather: an element-wise loop over out (kernels_index.cpp).
void gather(const StridedView& src, const StridedView& index, int dim, const StridedView& out);
/// Backend::scatter_add: blocks of fibers over the kernel threads, each fiber in order
/// along dim (deterministic).
void scatter_add(const StridedView& out, const StridedView& index, int dim, const StridedView& src);
}  // namespace kernels

}  // namespace hetero::cpu
