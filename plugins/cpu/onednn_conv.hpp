// SPDX-License-Identifier: Apache-2.0
#pragma once
// Backend::conv2d's and Backend::conv3d's float32 and bfloat16 kernels on oneDNN (issue #49
// item 1), as libtorch's cpu convolution: Note [Convolution on oneDNN] in onednn_conv.cpp.
#include <cstddef>

#include <hetero/sdk/kernel_args.hpp>
#include <hetero/sdk/op_codes.hpp>

namespace hetero::cpu::kernels {

/// Runs `op` of `args`' geometry on oneDNN over dense C-order operands of `dtype` (a, b, out
/// as Backend::conv2d names them; for Conv2dOp::forward_bias, a = input, b = weight and
/// `bias` [o], as Backend::conv2d_bias) and returns true; returns false, writing nothing, where
/// oneDNN has no primitive for it (bfloat16 needs AVX-512), `dtype` is neither float32 nor
/// bfloat16, or hetero was built without oneDNN (the caller then runs its own kernels).
/// bfloat16: products summed in float32 and the result rounded once, the bias added before
/// that rounding (as torch's bfloat16 convolution on oneDNN). `threads`: the device's kernel
/// threads. A batch of at least `threads` samples is split over the calling thread's kernel
/// pool (kernel_pool(); serially without one), one OpenMP thread each; otherwise oneDNN runs
/// on `threads` OpenMP threads (Note [oneDNN on the kernel threads]). Thread-safe: primitives
/// are cached per dtype, geometry and thread count and executed with a scratchpad of the
/// call's own.
bool onednn_conv2d(Conv2dOp op, const Conv2dArgs& args, DType dtype, const void* a, const void* b,
                   void* out, int threads, const void* bias = nullptr);

/// Runs the 3-d convolution `op` (Backend::conv3d's operands, dense C-order, of `dtype`) on
/// oneDNN's native 3-d primitives and returns true, as onednn_conv2d; false, writing nothing,
/// where oneDNN has none, `dtype` is neither float32 nor bfloat16, or hetero was built without
/// oneDNN. Thread-safe.
bool onednn_conv3d(Conv3dOp op, const Conv3dArgs& args, DType dtype, const void* a, const void* b,
                   void* out, int threads);

/// Whether this build of the cpu plugin has the oneDNN path (HETERO_CPU_ONEDNN).
bool onednn_available() noexcept;
/// Whether convolutions may call oneDNN: available, and not switched off by the environment
/// (HETERO_CPU_ONEDNN=0, read once).
bool onednn_in_use() noexcept;
/// Whether oneDNN runs its AVX-512 kernels on this CPU (its effective ISA, which
/// ONEDNN_MAX_CPU_ISA may lower; read once); false without oneDNN.
bool onednn_avx512() noexcept;

/// Frees the buffers that threads keep between oneDNN convolutions (onednn_runtime.hpp's
/// KeptBuffers: up to 5 x 64 MiB per thread that convolves), as Backend::empty_cache frees
/// cached memory; a call in progress keeps its own until it ends. Thread-safe.
void onednn_release_kept_buffers() noexcept;
/// Bytes those buffers hold now, all threads together (0 without oneDNN). Thread-safe.
std::size_t onednn_kept_bytes() noexcept;

}  // namespace hetero::cpu::kernels
