// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the normalisation layers (LayerNorm, BatchNorm, GroupNorm, InstanceNorm) share: the
// input check, the float32 computation of 16-bit input, rounded once at the end, and the
// per-channel layers' parameters and running statistics.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/tensor.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn::norm_detail {

/// x as the layer computes it: float32 for float16/bfloat16, else x. DTypeError naming
/// `who` for a non-floating x.
inline Tensor widened_input(const Tensor& x, const char* who) {
  if (!is_floating_point(x.dtype()))
    throw DTypeError(std::string(who) + ": expected a floating input, got " +
                     std::string(dtype_name(x.dtype())));
  const bool narrow = x.dtype() == DType::float16 || x.dtype() == DType::bfloat16;
  return narrow ? x.to(DType::float32) : x;
}

/// DTypeError naming `who` and `what` unless `p` (a parameter or running statistic) may
/// meet input x: of x's dtype, or float32 beside 16-bit x (the mixed precision torch 2's
/// cpu batch_norm, layer_norm and group_norm accept). torch refuses the rest ("expected
/// scalar type Double but found Float"), which the layer would otherwise convert silently.
/// And DeviceMismatchError when p is on another device than x, before the layer computes
/// or updates anything (BatchNorm counted the batch, then failed on its running mean).
inline void check_parameter(const Tensor& x, const Tensor& p, const char* who, const char* what) {
  if (p.device() != x.device())
    throw DeviceMismatchError(std::string(who) + ": " + what + " is on " + p.device().str() +
                              ", the input on " + x.device().str() +
                              " (expected all tensors to be on the same device, as torch; move "
                              "the module with to())");
  const bool narrow = x.dtype() == DType::float16 || x.dtype() == DType::bfloat16;
  if (p.dtype() == x.dtype() || (narrow && p.dtype() == DType::float32)) return;
  throw DTypeError(std::string(who) + ": expected " + what + " of the input's dtype " +
                   std::string(dtype_name(x.dtype())) + (narrow ? " (or float32)" : "") + ", got " +
                   std::string(dtype_name(p.dtype())) +
                   " (as torch; convert the module or the input)");
}

/// check_parameter of an affine layer's weight and bias (LayerNorm, BatchNorm, GroupNorm).
inline void check_affine(const Tensor& x, const Tensor& weight, const Tensor& bias,
                         const char* who) {
  check_parameter(x, weight, who, "weight");
  check_parameter(x, bias, who, "bias");
}

/// The product of x's sizes from dimension `from` on (1 when there are none).
inline std::int64_t trailing_numel(const Tensor& x, std::int64_t from) {
  std::int64_t n = 1;
  for (std::int64_t d = from; d < x.dim(); ++d) n *= x.size(d);
  return n;
}

/// What a per-channel normalisation layer (BatchNorm, InstanceNorm) registers: weight
/// (ones) and bias (zeros) [num_features] when `affine`; running_mean (zeros), running_var
/// (ones) and num_batches_tracked (int64 0) when `track`; in options' dtype (float32
/// default) on its device, in torch's order.
struct ChannelState {
  std::vector<std::pair<std::string, Tensor>> parameters, buffers;
};

/// ChannelState after the constructor checks both layers share, naming `who`: ValueError for
/// num_features <= 0, eps < 0 or a momentum outside [0, 1].
inline ChannelState channel_state(const std::string& who, std::int64_t num_features, double eps,
                                  std::optional<double> momentum, bool affine, bool track,
                                  const TensorOptions& options) {
  if (num_features <= 0)
    throw ValueError(who + ": num_features must be positive, got " + std::to_string(num_features));
  if (!(eps >= 0)) throw ValueError(who + ": eps must be >= 0, got " + std::to_string(eps));
  if (momentum && !(*momentum >= 0 && *momentum <= 1))
    throw ValueError(who + ": momentum must be in [0, 1], got " + std::to_string(*momentum));
  const TensorOptions o = options.dtype(options.dtype_or(DType::float32));
  ChannelState state;
  if (affine) {
    state.parameters.emplace_back("weight", ones({num_features}, o));
    state.parameters.emplace_back("bias", zeros({num_features}, o));
  }
  if (track) {
    state.buffers.emplace_back("running_mean", zeros({num_features}, o));
    state.buffers.emplace_back("running_var", ones({num_features}, o));
    state.buffers.emplace_back("num_batches_tracked", zeros({}, o.dtype(DType::int64)));
  }
  return state;
}

}  // namespace hetero::nn::norm_detail
