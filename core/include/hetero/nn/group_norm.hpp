// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/group_norm.hpp
/// hetero::nn::GroupNorm — group normalisation (Wu and He 2018), as torch.nn.GroupNorm: the
/// channels of x [N, C, ...] split into num_groups groups, each normalised over its channels
/// and the other dimensions with its own mean and biased variance, then scaled and shifted
/// per channel. The same in training and eval (no running statistics). Computed in float32
/// for 16-bit input, rounded once; differentiable through its parts.
#include <cstdint>

#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// Group normalisation, as torch.nn.GroupNorm (see the file comment).
class HETERO_API GroupNorm : public Module {
 public:
  /// weight (ones) and bias (zeros) [num_channels] when `affine`. ValueError unless
  /// num_groups > 0 divides num_channels >= 0 (torch's "num_channels must be divisible by
  /// num_groups"; 0 channels give empty results, as torch) and eps >= 0.
  GroupNorm(std::int64_t num_groups, std::int64_t num_channels, double eps = 1e-5,
            bool affine = true, TensorOptions options = {});
  /// x [N, C, ...] with C = num_channels (ShapeError otherwise), floating (DTypeError).
  /// ValueError when a group has one value (torch's check, in training and eval).
  /// DTypeError when weight or bias is neither x's dtype nor float32 beside 16-bit x (as
  /// torch).
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t groups_, channels_;
  double eps_;
  bool affine_;
};

}  // namespace hetero::nn
