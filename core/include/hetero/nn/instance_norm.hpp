// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/instance_norm.hpp
/// hetero::nn::InstanceNorm1d / 2d / 3d — instance normalisation (Ulyanov et al. 2016, style
/// transfer and GAN generators), as torch.nn.InstanceNorm1d/2d/3d: each channel of each
/// sample normalised over its spatial dimensions with its own mean and biased variance,
///   y = (x - mean_nc) / sqrt(var_nc + eps) * weight_c + bias_c   (affine: weight, bias),
/// torch's defaults: affine false, track_running_stats false. With track_running_stats,
/// training also updates, without recording gradients, running_mean = (1 - m) running_mean +
/// m mean_n(mean_nc) and running_var likewise with the unbiased variances (torch's batch_norm
/// over the [1, N C, ...] view, averaged over the batch), and eval normalises with them;
/// num_batches_tracked is registered, as torch's, and stays 0 (torch never counts it here).
/// Unbatched input (one rank less: [C, L] for 1d) is taken as a batch of one, as torch's.
/// Computed in float32 for 16-bit input and rounded once; differentiable through its parts.
/// Not thread-safe (Modules).
#include <cstdint>

#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// What InstanceNorm1d, 2d and 3d share; they differ in the ranks they accept.
class HETERO_API InstanceNorm : public Module {
 public:
  /// x [N, C, *spatial] or unbatched [C, *spatial], floating (DTypeError otherwise).
  /// ShapeError for another rank (torch's "expected 3D or 4D input (got 2D input)");
  /// ValueError when the batch statistics are used and a channel has one spatial element
  /// (torch's "Expected more than 1 spatial element when training"); ShapeError when C is
  /// not num_features and the layer is affine or tracks statistics (without them torch only
  /// warns, and so computes hetero). DTypeError or DeviceMismatchError for a parameter or
  /// running statistic of another dtype or device (as BatchNorm).
  Tensor forward(const Tensor& x) override;
  /// C, the channels.
  std::int64_t num_features() const noexcept { return features_; }

 protected:
  /// weight (ones) and bias (zeros) [num_features] when `affine`; running_mean (zeros),
  /// running_var (ones) and num_batches_tracked (int64 0) when `track_running_stats`; in
  /// options' dtype (float32 default) on its device. ValueError for num_features <= 0,
  /// eps < 0 or momentum outside [0, 1].
  InstanceNorm(const char* name, int spatial_dims, std::int64_t num_features, double eps,
               double momentum, bool affine, bool track_running_stats, TensorOptions options);

 private:
  const char* name_;
  int spatial_;
  std::int64_t features_;
  double eps_, momentum_;
  bool affine_, track_;
};

/// Instance normalisation of [N, C, L] or [C, L], as torch.nn.InstanceNorm1d.
class HETERO_API InstanceNorm1d : public InstanceNorm {
 public:
  /// See InstanceNorm's constructor; torch's defaults.
  explicit InstanceNorm1d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                          bool affine = false, bool track_running_stats = false,
                          TensorOptions options = {})
      : InstanceNorm("InstanceNorm1d", 1, num_features, eps, momentum, affine, track_running_stats,
                     options) {}
};

/// Instance normalisation of [N, C, H, W] or [C, H, W], as torch.nn.InstanceNorm2d.
class HETERO_API InstanceNorm2d : public InstanceNorm {
 public:
  /// See InstanceNorm's constructor; torch's defaults.
  explicit InstanceNorm2d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                          bool affine = false, bool track_running_stats = false,
                          TensorOptions options = {})
      : InstanceNorm("InstanceNorm2d", 2, num_features, eps, momentum, affine, track_running_stats,
                     options) {}
};

/// Instance normalisation of [N, C, D, H, W] or [C, D, H, W], as torch.nn.InstanceNorm3d.
class HETERO_API InstanceNorm3d : public InstanceNorm {
 public:
  /// See InstanceNorm's constructor; torch's defaults.
  explicit InstanceNorm3d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                          bool affine = false, bool track_running_stats = false,
                          TensorOptions options = {})
      : InstanceNorm("InstanceNorm3d", 3, num_features, eps, momentum, affine, track_running_stats,
                     options) {}
};

}  // namespace hetero::nn
