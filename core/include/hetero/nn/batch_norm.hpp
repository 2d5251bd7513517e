// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/batch_norm.hpp
/// hetero::nn::BatchNorm1d / BatchNorm2d / BatchNorm3d — batch normalisation (Ioffe and
/// Szegedy 2015), as torch.nn.BatchNorm1d / 2d / 3d: per channel c (dimension 1),
///   y = (x - mean_c) / sqrt(var_c + eps) * weight_c + bias_c
/// with the batch's mean and biased variance over every dimension but 1 in training (or
/// without running statistics), and the running ones in eval. Training with
/// track_running_stats updates, without recording gradients,
///   running_mean = (1 - m) running_mean + m mean,  running_var = (1 - m) running_var + m
///   var * n / (n - 1)   (the unbiased variance, n values per channel),
/// with m = momentum, or 1 / num_batches_tracked (a cumulative average) when momentum is
/// absent, and counts num_batches_tracked; the three are buffers (state_dict names
/// "running_mean", "running_var", "num_batches_tracked", as torch's). Computed in float32 for
/// 16-bit input and rounded once, as LayerNorm; differentiable through its parts.
#include <cstdint>
#include <optional>

#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// What BatchNorm1d, 2d and 3d share; they differ in the input ranks they accept.
class HETERO_API BatchNorm : public Module {
 public:
  /// x [N, C, ...]: ShapeError for a rank the layer does not take (torch's "expected 2D or
  /// 3D input (got 4D input)") or x.size(1) != num_features; DTypeError unless floating;
  /// ValueError in training when a channel has one value (torch's "Expected more than 1
  /// value per channel when training"); with none (an empty batch or no spatial elements)
  /// the result is empty and the running statistics stay as they were, but training still
  /// counts num_batches_tracked (as torch). DTypeError when a parameter or running statistic
  /// is neither x's dtype nor float32 beside 16-bit x (torch refuses, it never converts).
  Tensor forward(const Tensor& x) override;
  /// C, the channels normalised.
  std::int64_t num_features() const noexcept { return features_; }

 protected:
  /// weight (ones) and bias (zeros) [num_features] when `affine`; running_mean (zeros),
  /// running_var (ones) and num_batches_tracked (int64 0) when `track_running_stats`; in
  /// options' dtype (float32 default) on its device. ValueError for num_features <= 0,
  /// eps < 0 or momentum outside [0, 1].
  BatchNorm(const char* name, int min_rank, int max_rank, std::int64_t num_features, double eps,
            std::optional<double> momentum, bool affine, bool track_running_stats,
            TensorOptions options);

 private:
  const char* name_;
  int min_rank_, max_rank_;
  std::int64_t features_;
  double eps_;
  std::optional<double> momentum_;
  bool affine_, track_;
};

/// Batch normalisation of [N, C] or [N, C, L], as torch.nn.BatchNorm1d.
class HETERO_API BatchNorm1d : public BatchNorm {
 public:
  /// weight ones and bias zeros [num_features] (with affine), running_mean zeros and
  /// running_var ones (with track_running_stats), on options' device and dtype (float32 by
  /// default), and num_batches_tracked; momentum nullopt: a cumulative average, as torch's
  /// momentum=None. ValueError for num_features <= 0, eps < 0 or momentum outside [0, 1].
  explicit BatchNorm1d(std::int64_t num_features, double eps = 1e-5,
                       std::optional<double> momentum = 0.1, bool affine = true,
                       bool track_running_stats = true, TensorOptions options = {});
};

/// Batch normalisation of [N, C, H, W], as torch.nn.BatchNorm2d.
class HETERO_API BatchNorm2d : public BatchNorm {
 public:
  /// weight ones and bias zeros [num_features] (with affine), running_mean zeros and
  /// running_var ones (with track_running_stats), on options' device and dtype (float32 by
  /// default), and num_batches_tracked; momentum nullopt: a cumulative average, as torch's
  /// momentum=None. ValueError for num_features <= 0, eps < 0 or momentum outside [0, 1].
  explicit BatchNorm2d(std::int64_t num_features, double eps = 1e-5,
                       std::optional<double> momentum = 0.1, bool affine = true,
                       bool track_running_stats = true, TensorOptions options = {});
};

/// Batch normalisation of [N, C, D, H, W] (video clips, volumes), as torch.nn.BatchNorm3d.
class HETERO_API BatchNorm3d : public BatchNorm {
 public:
  /// weight ones and bias zeros [num_features] (with affine), running_mean zeros and
  /// running_var ones (with track_running_stats), on options' device and dtype (float32 by
  /// default), and num_batches_tracked; momentum nullopt: a cumulative average, as torch's
  /// momentum=None. ValueError for num_features <= 0, eps < 0 or momentum outside [0, 1].
  explicit BatchNorm3d(std::int64_t num_features, double eps = 1e-5,
                       std::optional<double> momentum = 0.1, bool affine = true,
                       bool track_running_stats = true, TensorOptions options = {});
};

}  // namespace hetero::nn
