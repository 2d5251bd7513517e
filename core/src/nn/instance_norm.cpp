// SPDX-License-Identifier: Apache-2.0
// nn::InstanceNorm1d/2d/3d (<hetero/nn/instance_norm.hpp>), as torch 1.13's
// torch/nn/modules/instancenorm.py and at::instance_norm: per (sample, channel) statistics
// over the spatial dimensions; the running statistics as batch_norm's over [1, N C, ...],
// averaged over the batch.
#include <hetero/nn/instance_norm.hpp>

#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"
#include "normalization.hpp"

namespace hetero::nn {

InstanceNorm::InstanceNorm(const char* name, int spatial_dims, std::int64_t num_features,
                           double eps, double momentum, bool affine, bool track_running_stats,
                           TensorOptions options)
    : name_(name),
      spatial_(spatial_dims),
      features_(num_features),
      eps_(eps),
      momentum_(momentum),
      affine_(affine),
      track_(track_running_stats) {
  auto state = norm_detail::channel_state(name, num_features, eps, momentum, affine,
                                          track_running_stats, options);
  for (auto& [key, t] : state.parameters) register_parameter(key, std::move(t));
  for (auto& [key, t] : state.buffers) register_buffer(key, std::move(t));
}

Tensor InstanceNorm::forward(const Tensor& x_in) {
  const std::string n(name_);
  if (!x_in.defined()) throw ShapeError(n + ": undefined input");
  if (x_in.dim() != spatial_ + 1 && x_in.dim() != spatial_ + 2)
    throw ShapeError(n + ": expected " + std::to_string(spatial_ + 1) + "D or " +
                     std::to_string(spatial_ + 2) + "D input (got " + std::to_string(x_in.dim()) +
                     "D input) (as torch)");
  const bool unbatched = x_in.dim() == spatial_ + 1;
  const Tensor batched = unbatched ? x_in.unsqueeze(0) : x_in;
  const std::int64_t batch = batched.size(0), channels = batched.size(1);
  if (channels != features_ && (affine_ || track_))
    throw ShapeError(n + ": expected input's size at dim=" + std::to_string(unbatched ? 0 : 1) +
                     " to match num_features (" + std::to_string(features_) +
                     "), but got: " + std::to_string(channels) + " (as torch)");
  const Tensor x = norm_detail::widened_input(batched, name_);
  if (affine_) norm_detail::check_affine(x_in, weight(), bias(), name_);
  if (track_) {
    norm_detail::check_parameter(x_in, buffer("running_mean"), name_, "running_mean");
    norm_detail::check_parameter(x_in, buffer("running_var"), name_, "running_var");
  }
  const std::int64_t rest = norm_detail::trailing_numel(x, 2);
  const Tensor x3 = x.reshape({batch, channels, rest});
  const bool input_stats = is_training() || !track_;
  const Shape per_c{1, channels, 1};
  Tensor y;
  if (input_stats) {
    if (rest == 1)  // none is fine (an empty result), as torch's _verify_spatial_size
      throw ValueError(n + ": Expected more than 1 spatial element when training, got input size " +
                       detail::shape_str(x_in.shape()) + " (as torch)");
    const Tensor mean_nc = mean(x3, 2, true);
    const Tensor centred = x3 - mean_nc;
    const Tensor var_nc = mean(centred * centred, 2, true);
    y = centred / sqrt(var_nc + eps_);
    if (track_ && x3.numel() > 0) {  // torch's batch_norm leaves them for empty input
      // batch_norm's update over the N C instances, then the batch's average, as torch's.
      NoGradGuard no_grad;
      Tensor& running_mean = buffer("running_mean");
      Tensor& running_var = buffer("running_var");
      const auto rest_d = static_cast<double>(rest);
      const Tensor batch_mean = mean(mean_nc.reshape({batch, channels}), 0);
      const Tensor batch_var =
          mean(var_nc.reshape({batch, channels}) * (rest_d / (rest_d - 1.0)), 0);
      running_mean.copy_((running_mean.to(x.dtype()) * (1.0 - momentum_) + batch_mean * momentum_)
                             .to(running_mean.dtype()));
      running_var.copy_((running_var.to(x.dtype()) * (1.0 - momentum_) + batch_var * momentum_)
                            .to(running_var.dtype()));
    }
  } else {
    const Tensor rm = buffer("running_mean").to(x.dtype()).reshape(per_c);
    const Tensor rv = buffer("running_var").to(x.dtype()).reshape(per_c);
    y = (x3 - rm) / sqrt(rv + eps_);
  }
  if (affine_) y = y * weight().to(y.dtype()).reshape(per_c) + bias().to(y.dtype()).reshape(per_c);
  return y.reshape(x_in.shape()).to(x_in.dtype());
}

}  // namespace hetero::nn
