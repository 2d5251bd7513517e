// SPDX-License-Identifier: Apache-2.0
// pixel_shuffle and pixel_unshuffle (<hetero/pixel_shuffle.hpp>): reshape, permute and a
// contiguous copy, as torch 1.13's math (aten/src/ATen/native/PixelShuffle.cpp).
#include <hetero/pixel_shuffle.hpp>

#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include <hetero/error.hpp>

#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

namespace {

using detail::shape_str;

// The checks both share: at least 3 dimensions and a positive factor.
void check_input(const Tensor& x, std::int64_t factor, const char* op, const char* factor_name) {
  detail::impl_of(x, op);
  if (x.dim() < 3)
    throw ShapeError(
        std::string(op) + " expects input to have at least 3 dimensions, but got input with " +
        std::to_string(x.dim()) + " dimension(s) (shape " + shape_str(x.shape()) + ")");
  if (factor < 1)
    throw ValueError(std::string(op) + " expects a positive " + factor_name + ", but got " +
                     std::to_string(factor));
}

// factor * factor * times; ShapeError naming `op` where it overflows int64 (torch 1.13
// computes it unchecked: a factor of 2^32 divides by 0 there, SIGFPE).
std::int64_t square_times(std::int64_t factor, std::int64_t times, const char* op,
                          const char* factor_name) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(factor, factor, &out) || __builtin_mul_overflow(out, times, &out))
    throw ShapeError(std::string(op) + ": " + factor_name + " " + std::to_string(factor) +
                     " is too large (its square times " + std::to_string(times) +
                     " overflows int64)");
  return out;
}

// `x` with its last three dimensions replaced by `tail`, then permuted so that the leading
// (batch) dimensions stay and the tail's dimensions come in `order`, then reshaped to the
// leading dimensions followed by `out_tail`; contiguous.
Tensor rearrange(const Tensor& x, const Shape& tail, const std::vector<std::int64_t>& order,
                 const Shape& out_tail) {
  const std::size_t lead = x.shape().size() - 3;
  Shape split(x.shape().begin(), x.shape().begin() + static_cast<std::ptrdiff_t>(lead));
  Shape out = split;
  split.insert(split.end(), tail.begin(), tail.end());
  out.insert(out.end(), out_tail.begin(), out_tail.end());
  std::vector<std::int64_t> dims(lead);
  std::iota(dims.begin(), dims.end(), 0);
  for (std::int64_t d : order) dims.push_back(static_cast<std::int64_t>(lead) + d);
  return x.reshape(split).permute(dims).contiguous().reshape(out);
}

}  // namespace

Tensor pixel_shuffle(const Tensor& x, std::int64_t upscale_factor) {
  const detail::prof::Scope op_scope("pixel_shuffle", x);
  check_input(x, upscale_factor, "pixel_shuffle", "upscale_factor");
  const std::int64_t r = upscale_factor, n = x.dim();
  const std::int64_t c = x.size(n - 3), h = x.size(n - 2), w = x.size(n - 1);
  const std::int64_t r2 = square_times(r, 1, "pixel_shuffle", "upscale_factor");
  if (c % r2 != 0)
    throw ShapeError(
        "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
        "of upscale_factor, but input.size(-3)=" +
        std::to_string(c) + " is not divisible by " + std::to_string(r2));
  const std::int64_t oc = c / r2;
  // [*, oc, r, r, h, w] -> [*, oc, h, r, w, r]
  return rearrange(x, {oc, r, r, h, w}, {0, 3, 1, 4, 2}, {oc, h * r, w * r});
}

Tensor pixel_unshuffle(const Tensor& x, std::int64_t downscale_factor) {
  const detail::prof::Scope op_scope("pixel_unshuffle", x);
  check_input(x, downscale_factor, "pixel_unshuffle", "downscale_factor");
  const std::int64_t r = downscale_factor, n = x.dim();
  const std::int64_t c = x.size(n - 3), h = x.size(n - 2), w = x.size(n - 1);
  for (const auto& [size, what, dim] : {std::tuple{h, "height", -2}, std::tuple{w, "width", -1}})
    if (size % r != 0)
      throw ShapeError("pixel_unshuffle expects " + std::string(what) +
                       " to be divisible by downscale_factor, but input.size(" +
                       std::to_string(dim) + ")=" + std::to_string(size) + " is not divisible by " +
                       std::to_string(r));
  const std::int64_t oc = square_times(r, c, "pixel_unshuffle", "downscale_factor");
  // [*, c, h / r, r, w / r, r] -> [*, c, r, r, h / r, w / r]
  return rearrange(x, {c, h / r, r, w / r, r}, {0, 2, 4, 1, 3}, {oc, h / r, w / r});
}

}  // namespace hetero
