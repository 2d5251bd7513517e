// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/upsample.hpp
/// hetero::nn::Upsample, as torch.nn.Upsample: interpolate() of <hetero/interpolate.hpp> with
/// fixed options, no parameters (U-Net's and FPN's upsampling, a GAN generator's).
#include <hetero/interpolate.hpp>
#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// torch.nn.Upsample's arguments: size or scale_factor, mode (default nearest),
/// align_corners, recompute_scale_factor; the same fields as interpolate's.
using UpsampleOptions = InterpolateOptions;

/// Resizes [N, C, W], [N, C, H, W] or [N, C, D, H, W] input by interpolate(x, options).
class HETERO_API Upsample : public Module {
 public:
  /// Keeps the options; they are checked at forward(), as torch's (ValueError etc. there).
  explicit Upsample(UpsampleOptions options);
  /// interpolate(x, options); throws what interpolate throws.
  Tensor forward(const Tensor& x) override;
  /// The options, as given.
  const UpsampleOptions& options() const noexcept { return options_; }

 private:
  UpsampleOptions options_;
};

}  // namespace hetero::nn
