// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/clip_grad.hpp
/// Gradient clipping, as torch.nn.utils.clip_grad_norm_ / clip_grad_value_ (torch 1.13):
/// both change the parameters' gradients in place, on their devices, without recording
/// gradients; parameters without a gradient are skipped.
#include <vector>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero::nn::utils {

/// Scales every gradient by min(1, max_norm / (total + 1e-6)), where total is the norm of
/// order `norm_type` of all gradients together (as if concatenated): the norm of each
/// gradient, stacked on the first gradient's device, then the norm of those
/// (norm_type = infinity: the largest |element|). Returns total, a 0-d tensor on the first
/// gradient's device in the gradients' dtype (0-d float32 cpu 0 when no parameter has a
/// gradient), without waiting for the device unless `error_if_nonfinite`.
/// ValueError when norm_type is not > 0 (torch's 0-"norm" and negative orders are not
/// offered); with `error_if_nonfinite`, ValueError when total is NaN or infinite (torch raises
/// RuntimeError) and the gradients are left unchanged.
HETERO_API Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                                  double norm_type = 2.0, bool error_if_nonfinite = false);

/// Clamps every gradient element to [-clip_value, clip_value] (as torch, NaN stays NaN).
/// ValueError for a negative or NaN clip_value.
HETERO_API void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);

}  // namespace hetero::nn::utils
