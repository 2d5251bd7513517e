// SPDX-License-Identifier: Apache-2.0
#pragma once
// What Conv2d and ConvTranspose2d share: the constructor's checks, the layer's name for
// messages, and torch's U(-1/sqrt(fan_in), 1/sqrt(fan_in)) initialisation.
#include <cstdint>
#include <string>

#include <hetero/conv.hpp>
#include <hetero/tensor.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::detail {

/// "Conv2d(1, 6, [5, 5])": `kind` with the channel counts and kernel, for messages.
std::string conv_layer_name(const char* kind, std::int64_t in_channels, std::int64_t out_channels,
                            Size2 kernel_size);

/// ValueError naming `what` for non-positive channel counts or kernel sizes, groups that are
/// not positive or do not divide both channel counts, stride or dilation < 1, or padding < 0.
void check_conv_layer(const std::string& what, std::int64_t in_channels, std::int64_t out_channels,
                      Size2 kernel_size, std::int64_t groups, Size2 stride, Size2 padding,
                      Size2 dilation);

/// A new tensor of `shape` drawn from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) in `options`' dtype
/// (default float32), as torch's _ConvNd.reset_parameters (kaiming_uniform with a = sqrt(5)
/// for the weight, the same bound for the bias).
Tensor conv_uniform(const Shape& shape, std::int64_t fan_in, const TensorOptions& options);

}  // namespace hetero::detail
