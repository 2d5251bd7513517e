// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/batch_norm.hpp>

#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../autograd/record.hpp"
#include "../op_helpers.hpp"
#include "batch_norm_kernels.hpp"
#include "normalization.hpp"

namespace hetero::nn {

BatchNorm::BatchNorm(const char* name, int min_rank, int max_rank, std::int64_t num_features,
                     double eps, std::optional<double> momentum, bool affine,
                     bool track_running_stats, TensorOptions options)
    : name_(name),
      min_rank_(min_rank),
      max_rank_(max_rank),
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

Tensor BatchNorm::forward(const Tensor& x_in) {
  const std::string n(name_);
  if (!x_in.defined()) throw ShapeError(n + ": undefined input");
  if (x_in.dim() < min_rank_ || x_in.dim() > max_rank_)
    throw ShapeError(n + ": expected " +
                     (min_rank_ == max_rank_
                          ? std::to_string(min_rank_) + "D"
                          : std::to_string(min_rank_) + "D or " + std::to_string(max_rank_) + "D") +
                     " input (got " + std::to_string(x_in.dim()) + "D input) (as torch)");
  if (x_in.size(1) != features_)
    throw ShapeError(n + ": expected " + std::to_string(features_) +
                     " channels (dimension 1), got shape " + detail::shape_str(x_in.shape()));
  const Tensor x = norm_detail::widened_input(x_in, name_);
  if (affine_) norm_detail::check_affine(x_in, weight(), bias(), name_);
  if (track_) {
    norm_detail::check_parameter(x_in, buffer("running_mean"), name_, "running_mean");
    norm_detail::check_parameter(x_in, buffer("running_var"), name_, "running_var");
  }
  // [N, C, rest] with the channel statistics as [1, C, 1].
  const std::int64_t rest = norm_detail::trailing_numel(x, 2);
  const std::int64_t batch = x.size(0), per_channel = batch * rest;
  const Tensor x3 = x.reshape({batch, features_, rest});
  const bool batch_stats = is_training() || !track_;
  const Tensor w = affine_ ? weight().to(x.dtype()) : Tensor();
  const Tensor b = affine_ ? bias().to(x.dtype()) : Tensor();
  const Shape per_c{1, features_, 1};
  // x3 * alpha + beta, alpha = w / sqrt(var + eps) and beta = b - mean * alpha ([1, C, 1]).
  const auto normalised = [&](const Tensor& mean_c, const Tensor& invstd) {
    const Tensor alpha = affine_ ? invstd * w.reshape(per_c) : invstd;
    Tensor beta = -(mean_c * alpha);
    if (affine_) beta = beta + b.reshape(per_c);
    return x3 * alpha + beta;
  };
  if (!batch_stats) {
    // The running statistics: constants of the graph; autograd differentiates the map.
    const Tensor mean_c = buffer("running_mean").to(x.dtype()).reshape(per_c);
    const Tensor var_c = buffer("running_var").to(x.dtype()).reshape(per_c);
    return normalised(mean_c, reciprocal(sqrt(var_c + eps_))).reshape(x.shape()).to(x_in.dtype());
  }
  // As torch's F.batch_norm(training=True), which eval without running statistics is too.
  if (per_channel == 1)
    throw ValueError(n + ": Expected more than 1 value per channel when training, got input size " +
                     detail::shape_str(x_in.shape()) + " (as torch)");
  if (per_channel == 0) {
    // torch's empty-input path (_batch_norm_impl_index): an empty result still connected to
    // weight and bias, the running statistics untouched; nn.BatchNorm still counts the batch.
    if (is_training() && track_) {
      Tensor& count = buffer("num_batches_tracked");
      count.copy_(count + 1);
    }
    const TensorOptions o = TensorOptions(x.device()).dtype(x.dtype());
    return normalised(zeros(per_c, o), ones(per_c, o)).reshape(x.shape()).to(x_in.dtype());
  }
  // The running statistics from the batch's mean and biased variance, [C] each (training
  // with track_running_stats only), as torch: momentum, or a cumulative average without one.
  const auto update_running = [&](const Tensor& mean_c, const Tensor& var_c) {
    if (!is_training() || !track_) return;
    Tensor& count = buffer("num_batches_tracked");
    const double m =
        momentum_ ? *momentum_ : 1.0 / static_cast<double>(count.item<std::int64_t>() + 1);
    const double unbias = static_cast<double>(per_channel) / static_cast<double>(per_channel - 1);
    Tensor& rm = buffer("running_mean");
    Tensor& rv = buffer("running_var");
    // Every new value first, then the writes: a failure leaves the three as they were.
    const Tensor new_mean = rm * (1 - m) + mean_c.to(rm.dtype()) * m;
    const Tensor new_var = rv * (1 - m) + var_c.to(rv.dtype()) * (m * unbias);
    const Tensor new_count = count + 1;
    rm.copy_(new_mean);
    rv.copy_(new_var);
    count.copy_(new_count);
  };
  Tensor y;
  if (norm_detail::batch_norm_by_kernels(x3)) {
    // The device's kernels (Note [Batch norm kernels]): one node, its backward a kernel too.
    Tensor wb, stats;
    {
      NoGradGuard no_grad;
      const TensorOptions o = TensorOptions(x.device()).dtype(x.dtype());
      wb = affine_ ? stack({w, b}) : stack({ones({features_}, o), zeros({features_}, o)});
      norm_detail::BatchNormForward f = norm_detail::batch_norm_forward(x3, wb, eps_);
      update_running(f.stats[0], f.stats[1]);
      y = std::move(f.y);
      stats = std::move(f.stats);
    }
    y = detail::record("NativeBatchNormBackward", y, {x3, w, b}, [&] {
      return [sx = detail::saved(x3), swb = detail::saved(wb), ss = detail::saved(stats),
              eps = eps_, affine = affine_](const Tensor& g) {
        const norm_detail::BatchNormBackward r =
            norm_detail::batch_norm_backward(g, sx, swb, ss, eps);
        if (!affine) return detail::Gradients{r.grad_input, Tensor(), Tensor()};
        return detail::Gradients{r.grad_input, r.grad_weight_bias[0], r.grad_weight_bias[1]};
      };
    });
    return y.reshape(x.shape()).to(x_in.dtype());
  }
  // Batch statistics, as torch's cpu kernels (batch_norm_cpu_collect_stats and
  // batch_norm_cpu_transform_input): the per-channel affine map folded into one scale and
  // one shift, y = x * alpha + beta with alpha = w / sqrt(var + eps) and beta = b - mean *
  // alpha (two element-wise passes over x), and one backward node with torch's formula
  // (batch_norm_backward_cpu) instead of the graph of a dozen element-wise ops the
  // composition records: dx = (g - mean(g) - (x - mean) * k) * invstd * w with k =
  // sum(g * (x - mean)) * invstd^2 / M, dw = sum(g * (x - mean)) * invstd, db = sum(g),
  // the sums over the M = N * H * W elements of each channel.
  Tensor centred, invstd;
  {
    NoGradGuard no_grad;
    const Tensor mean_c = mean(mean(x3, 2, true), 0, true);
    centred = x3 - mean_c;
    const Tensor var_c = mean(mean(centred * centred, 2, true), 0, true);
    update_running(mean_c.reshape({features_}), var_c.reshape({features_}));
    invstd = reciprocal(sqrt(var_c + eps_));
    y = normalised(mean_c, invstd);
  }
  const double count = static_cast<double>(per_channel);
  y = detail::record("NativeBatchNormBackward", y, {x3, w, b}, [&] {
    return [c = detail::saved(centred), is = detail::saved(invstd),
            sw = affine_ ? detail::saved(w) : Tensor(), per_c, count,
            features = features_](const Tensor& g) {
      const Tensor sum_g = sum(sum(g, 2, true), 0, true);
      const Tensor sum_gc = sum(sum(g * c, 2, true), 0, true);
      const Tensor k = is * is * sum_gc / count;
      const Tensor scale = sw.defined() ? is * sw.reshape(per_c) : is;
      const Tensor dx = (g - sum_g / count - c * k) * scale;
      if (!sw.defined()) return detail::Gradients{dx, Tensor(), Tensor()};
      return detail::Gradients{dx, (sum_gc * is).reshape({features}), sum_g.reshape({features})};
    };
  });
  return y.reshape(x.shape()).to(x_in.dtype());
}

BatchNorm1d::BatchNorm1d(std::int64_t num_features, double eps, std::optional<double> momentum,
                         bool affine, bool track_running_stats, TensorOptions options)
    : BatchNorm("BatchNorm1d", 2, 3, num_features, eps, momentum, affine, track_running_stats,
                options) {}

BatchNorm2d::BatchNorm2d(std::int64_t num_features, double eps, std::optional<double> momentum,
                         bool affine, bool track_running_stats, TensorOptions options)
    : BatchNorm("BatchNorm2d", 4, 4, num_features, eps, momentum, affine, track_running_stats,
                options) {}

BatchNorm3d::BatchNorm3d(std::int64_t num_features, double eps, std::optional<double> momentum,
                         bool affine, bool track_running_stats, TensorOptions options)
    : BatchNorm("BatchNorm3d", 5, 5, num_features, eps, momentum, affine, track_running_stats,
                options) {}

}  // namespace hetero::nn
