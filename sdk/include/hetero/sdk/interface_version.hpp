// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file interface_version.hpp
/// The version of the plugin interface (Backend, Buffer, Stream, the op tables) and the
/// minor version a plugin is built against. Note [Interface versions] (docs/design/op-tables.md):
/// - the major changes when the layout of an interface class changes in a way an older
///   plugin cannot follow (a virtual removed, reordered or changed); the core loads only
///   plugins of its own major;
/// - the minor grows when something is appended: an op row in a new minor group of
///   <hetero/sdk/op_table.hpp>, or a virtual at the end of Backend guarded by
///   `#if HETERO_TARGET_INTERFACE_MINOR >= N`. The core loads plugins of any minor up to
///   its own, and treats what a plugin's minor lacks as unsupported (never calls it).

/// 3: Backend::supports() added and copy_strided() folded into cast(); the op tables.
#define HETERO_INTERFACE_VERSION_MAJOR 3
/// 1: UnaryOp::sin. 2: DType::uint8 and DType::int8 (dtype_since, op_codes.hpp).
/// 3: Backend::softmax(), the optional fused softmax / log_softmax (OpFamily::softmax).
/// 4: the comparisons eq ne lt le gt ge and pow (BinaryOp rows), the ternary family
/// (OpFamily::ternary, TernaryOp::where) and Backend::ternary(). 5: UnaryOp::log1p, expm1,
/// rsqrt. 6: the index kernels Backend::gather() and Backend::scatter_add()
/// (OpFamily::gather, OpFamily::scatter_add). 7: Backend::adopt(), the optional wrapping of
/// device memory the backend did not allocate (DLPack import, from_blob on a device).
/// 8: Backend::conv2d(), the optional convolution kernels (OpFamily::conv2d, Conv2dOp).
/// 9: Backend::record_timestamp() and elapsed_seconds(), the optional device timestamps
/// (the profiler's device time of each kernel). 10: Backend::reduces_into(), the optional
/// widening sums (int8, uint8 and int32 summed into int64 without a converted copy).
/// 11: UnaryOp::erf, reciprocal, floor, ceil, round, trunc, sign and BinaryOp::atan2 (the
/// first `floating` binary row beside div). 12: BinaryOp::fmod and remainder.
/// 13: Backend::batch_norm(), the optional batch normalisation kernels (OpFamily::batch_norm,
/// BatchNormOp, BatchNormArgs, BatchNormViews), and Backend::pool2d(), the optional max
/// pooling kernels (OpFamily::pool2d, Pool2dOp, Pool2dArgs, Pool2dViews). 14: Pool2dOp's
/// average pooling codes (avg_forward, avg_backward) and Pool2dViews::divisor.
/// 15: Conv2dOp::forward_bias and Backend::conv2d_bias(), the optional convolution with its
/// bias added in the kernel (as oneDNN's and cuDNN's fused bias).
/// 16: Backend::conv3d(), the optional 3-d convolution kernels (OpFamily::conv3d, Conv3dOp,
/// Conv3dArgs).
#define HETERO_INTERFACE_VERSION_MINOR 16

/// The minor version this translation unit is built against: the newest unless a plugin
/// defines it lower (as OpenCL's CL_TARGET_OPENCL_VERSION), to be loadable by an older core
/// or, in hetero's tests, to stand for a plugin built with an older SDK. The op tables
/// then hold only the rows of that minor and older, and HETERO_PLUGIN reports it.
#ifndef HETERO_TARGET_INTERFACE_MINOR
#define HETERO_TARGET_INTERFACE_MINOR HETERO_INTERFACE_VERSION_MINOR
#endif
#if HETERO_TARGET_INTERFACE_MINOR > HETERO_INTERFACE_VERSION_MINOR
#error "HETERO_TARGET_INTERFACE_MINOR is newer than this SDK's HETERO_INTERFACE_VERSION_MINOR"
#endif
