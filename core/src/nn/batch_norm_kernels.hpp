// SPDX-License-Identifier: Apache-2.0
#pragma once
// Note [Batch norm kernels]: BatchNorm's batch statistics (training, or eval without running
// statistics) run on the device's own batch normalisation kernels where its backend has them
// (Backend::batch_norm, interface minor 13: the cpu plugin's, Note [Batch norm kernels on the
// cpu]): y with the batch's mean and variance in one kernel, the three gradients in another,
// each reading x (and dy) from memory once, where the composition below makes about ten
// element-wise passes each way. Elsewhere (cuda, OpenCL, the template, 16-bit inputs widened
// to float32 included) batch_norm.cpp composes it from reductions and element-wise kernels,
// as before. Both give torch's values to rounding (torch_layers.cpu and .cpu_composed); the
// running statistics are updated by the core either way.
#include <hetero/tensor.hpp>

namespace hetero::nn::norm_detail {

/// Whether x's backend has both batch normalisation kernels for x's dtype. Runs nothing.
bool batch_norm_by_kernels(const Tensor& x);

/// The forward kernel's results: y [n, c, s] and the batch statistics [2, c] (row 0 the
/// mean, row 1 the biased variance), in x's dtype on x's device.
struct BatchNormForward {
  Tensor y, stats;
};

/// Batch norm of x3 [n, c, s] with the batch's statistics, scale and shift weight_bias
/// [2, c], as native_batch_norm(training = true). Only where batch_norm_by_kernels(x3).
/// Records nothing (the caller does).
BatchNormForward batch_norm_forward(const Tensor& x3, const Tensor& weight_bias, double eps);

/// The gradients of batch_norm_forward: dL/dx [n, c, s] and dL/d(weight_bias) [2, c] for the
/// output gradient g [n, c, s], as native_batch_norm_backward. Records nothing.
struct BatchNormBackward {
  Tensor grad_input, grad_weight_bias;
};
BatchNormBackward batch_norm_backward(const Tensor& g, const Tensor& x3, const Tensor& weight_bias,
                                      const Tensor& stats, double eps);

}  // namespace hetero::nn::norm_detail
