// SPDX-License-Identifier: Apache-2.0
#include "conv_layer.hpp"

#include <cmath>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

namespace hetero::detail {

std::string conv_layer_name(const char* kind, std::int64_t in_channels, std::int64_t out_channels,
                            Size2 kernel_size) {
  return std::string(kind) + "(" + std::to_string(in_channels) + ", " +
         std::to_string(out_channels) + ", [" + std::to_string(kernel_size.h) + ", " +
         std::to_string(kernel_size.w) + "])";
}

void check_conv_layer(const std::string& what, std::int64_t in_channels, std::int64_t out_channels,
                      Size2 kernel_size, std::int64_t groups, Size2 stride, Size2 padding,
                      Size2 dilation) {
  if (in_channels <= 0 || out_channels <= 0 || kernel_size.h <= 0 || kernel_size.w <= 0)
    throw ValueError(what + ": channel counts and kernel sizes must be positive");
  if (groups <= 0 || in_channels % groups != 0 || out_channels % groups != 0)
    throw ValueError(what + ": groups (" + std::to_string(groups) +
                     ") must be positive and divide both channel counts");
  if (stride.h < 1 || stride.w < 1 || dilation.h < 1 || dilation.w < 1 || padding.h < 0 ||
      padding.w < 0)
    throw ValueError(what + ": stride and dilation must be >= 1 and padding >= 0");
}

Tensor conv_uniform(const Shape& shape, std::int64_t fan_in, const TensorOptions& options) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  return rand(shape, options.dtype(options.dtype_or(DType::float32))) * (2 * bound) - bound;
}

}  // namespace hetero::detail
