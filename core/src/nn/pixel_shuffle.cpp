// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/pixel_shuffle.hpp>

#include <string>

#include <hetero/error.hpp>
#include <hetero/pixel_shuffle.hpp>

namespace hetero::nn {

namespace {
std::int64_t positive_factor(std::int64_t r, const char* who, const char* what) {
  if (r < 1)
    throw ValueError(std::string(who) + ": " + what + " must be positive, got " +
                     std::to_string(r));
  return r;
}
}  // namespace

PixelShuffle::PixelShuffle(std::int64_t upscale_factor)
    : r_(positive_factor(upscale_factor, "PixelShuffle", "upscale_factor")) {}
Tensor PixelShuffle::forward(const Tensor& x) { return pixel_shuffle(x, r_); }

PixelUnshuffle::PixelUnshuffle(std::int64_t downscale_factor)
    : r_(positive_factor(downscale_factor, "PixelUnshuffle", "downscale_factor")) {}
Tensor PixelUnshuffle::forward(const Tensor& x) { return pixel_unshuffle(x, r_); }

}  // namespace hetero::nn
