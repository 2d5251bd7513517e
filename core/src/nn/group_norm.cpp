// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/group_norm.hpp>

#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"
#include "normalization.hpp"

namespace hetero::nn {

GroupNorm::GroupNorm(std::int64_t num_groups, std::int64_t num_channels, double eps, bool affine,
                     TensorOptions options)
    : groups_(num_groups), channels_(num_channels), eps_(eps), affine_(affine) {
  if (num_groups <= 0)
    throw ValueError("GroupNorm: num_groups must be positive, got " + std::to_string(num_groups));
  // No channels is allowed (an empty result), as torch.
  if (num_channels < 0 || num_channels % num_groups != 0)
    throw ValueError("GroupNorm: num_channels must be divisible by num_groups (got " +
                     std::to_string(num_channels) + " and " + std::to_string(num_groups) +
                     ", as torch)");
  if (!(eps >= 0)) throw ValueError("GroupNorm: eps must be >= 0, got " + std::to_string(eps));
  if (affine) {
    const TensorOptions o = options.dtype(options.dtype_or(DType::float32));
    register_parameter("weight", ones({num_channels}, o));
    register_parameter("bias", zeros({num_channels}, o));
  }
}

Tensor GroupNorm::forward(const Tensor& x_in) {
  if (!x_in.defined() || x_in.dim() < 2 || x_in.size(1) != channels_)
    throw ShapeError("GroupNorm: expected input [N, " + std::to_string(channels_) + ", ...], got " +
                     (x_in.defined() ? detail::shape_str(x_in.shape()) : std::string("undefined")));
  const Tensor x = norm_detail::widened_input(x_in, "GroupNorm");
  if (affine_) norm_detail::check_affine(x_in, weight(), bias(), "GroupNorm");
  const std::int64_t rest = norm_detail::trailing_numel(x, 2);
  const std::int64_t batch = x.size(0);
  if (batch * (channels_ / groups_) * rest == 1)
    throw ValueError(
        "GroupNorm: Expected more than 1 value per channel when training, got input size " +
        detail::shape_str(x_in.shape()) + " (as torch: one value per group)");
  // [N, G, C/G * rest]: each row one group's values.
  const Tensor g = x.reshape({batch, groups_, channels_ / groups_ * rest});
  const Tensor centred = g - mean(g, 2, true);
  const Tensor variance = mean(centred * centred, 2, true);
  Tensor y = (centred / sqrt(variance + eps_)).reshape({batch, channels_, rest});
  if (affine_)
    y = y * weight().to(y.dtype()).reshape({1, channels_, 1}) +
        bias().to(y.dtype()).reshape({1, channels_, 1});
  return y.reshape(x.shape()).to(x_in.dtype());
}

}  // namespace hetero::nn
