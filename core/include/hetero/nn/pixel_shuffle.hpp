// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/pixel_shuffle.hpp
/// hetero::nn::PixelShuffle and PixelUnshuffle, as torch.nn's: pixel_shuffle(x, r) and
/// pixel_unshuffle(x, r) of <hetero/pixel_shuffle.hpp> as layers (no parameters).
#include <cstdint>

#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// [*, C r^2, H, W] -> [*, C, H r, W r], as torch.nn.PixelShuffle(upscale_factor).
class HETERO_API PixelShuffle : public Module {
 public:
  /// r; ValueError for r < 1 (torch refuses it at forward).
  explicit PixelShuffle(std::int64_t upscale_factor);
  /// pixel_shuffle(x, r); errors as pixel_shuffle.
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t r_;
};

/// [*, C, H r, W r] -> [*, C r^2, H, W], as torch.nn.PixelUnshuffle(downscale_factor).
class HETERO_API PixelUnshuffle : public Module {
 public:
  /// r; ValueError for r < 1 (torch refuses it at forward).
  explicit PixelUnshuffle(std::int64_t downscale_factor);
  /// pixel_unshuffle(x, r); errors as pixel_unshuffle.
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t r_;
};

}  // namespace hetero::nn
