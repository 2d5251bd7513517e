// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file pixel_shuffle.hpp
/// pixel_shuffle and pixel_unshuffle, as torch.nn.functional's (Shi et al. 2016, the
/// sub-pixel convolution of ESPCN): channels traded for spatial resolution by an integer
/// factor r. Any dtype (bool included), any device: a reshape, a permute and a copy, so every
/// backend runs them and autograd records them through those ops (the gradient is the
/// inverse rearrangement). The result is a new contiguous tensor, as torch's.
#include <cstdint>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// x [*, C r^2, H, W] -> [*, C, H r, W r]: out[..., c, h r + i, w r + j] =
/// x[..., c r^2 + i r + j, h, w], as torch.nn.functional.pixel_shuffle. ShapeError for fewer
/// than 3 dimensions or a channel count (size(-3)) not divisible by r^2; ValueError for
/// upscale_factor < 1. torch's messages.
HETERO_API Tensor pixel_shuffle(const Tensor& x, std::int64_t upscale_factor);
/// The inverse: x [*, C, H r, W r] -> [*, C r^2, H, W], as
/// torch.nn.functional.pixel_unshuffle. ShapeError for fewer than 3 dimensions or a height or
/// width not divisible by r; ValueError for downscale_factor < 1.
HETERO_API Tensor pixel_unshuffle(const Tensor& x, std::int64_t downscale_factor);

}  // namespace hetero
