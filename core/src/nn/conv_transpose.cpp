// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/conv_transpose.hpp>

#include <cmath>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "conv_layer.hpp"

namespace hetero::nn {

ConvTranspose2d::ConvTranspose2d(std::int64_t in_channels, std::int64_t out_channels,
                                 Size2 kernel_size, ConvTranspose2dOptions conv,
                                 TensorOptions options)
    : conv_(conv), kernel_(kernel_size) {
  const std::string what =
      detail::conv_layer_name("ConvTranspose2d", in_channels, out_channels, kernel_size);
  detail::check_conv_layer(what, in_channels, out_channels, kernel_size, conv.groups, conv.stride,
                           conv.padding, conv.dilation);
  if (conv.output_padding.h < 0 || conv.output_padding.w < 0)
    throw ValueError(what + ": output_padding must be >= 0");
  if ((conv.output_padding.h >= conv.stride.h && conv.output_padding.h >= conv.dilation.h) ||
      (conv.output_padding.w >= conv.stride.w && conv.output_padding.w >= conv.dilation.w))
    throw ValueError(what + ": output padding must be smaller than either stride or dilation");
  // fan_in from the weight's dimension 1 (out_channels / groups * KH * KW), as
  // torch.nn.ConvTranspose2d.reset_parameters.
  const std::int64_t fan_in = out_channels / conv.groups * kernel_size.h * kernel_size.w;
  register_parameter("weight", detail::conv_uniform({in_channels, out_channels / conv.groups,
                                                     kernel_size.h, kernel_size.w},
                                                    fan_in, options));
  if (conv.bias) register_parameter("bias", detail::conv_uniform({out_channels}, fan_in, options));
}

Tensor ConvTranspose2d::forward(const Tensor& x) {
  return conv_transpose2d(x, weight(), conv_.bias ? bias() : Tensor(), conv_.stride, conv_.padding,
                          conv_.output_padding, conv_.groups, conv_.dilation);
}

Tensor ConvTranspose2d::forward(const Tensor& x, Size2 output_size) {
  if (!x.defined() || x.dim() < 3) throw ShapeError("ConvTranspose2d: expected a 3-D or 4-D input");
  const std::int64_t h = x.size(x.dim() - 2), w = x.size(x.dim() - 1);
  // The size with no output padding, as torch's _output_padding (its largest valid size adds
  // stride - 1).
  const auto smallest = [](std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p,
                           std::int64_t d) { return (in - 1) * s - 2 * p + d * (k - 1) + 1; };
  const std::int64_t min_h =
      smallest(h, kernel_.h, conv_.stride.h, conv_.padding.h, conv_.dilation.h);
  const std::int64_t min_w =
      smallest(w, kernel_.w, conv_.stride.w, conv_.padding.w, conv_.dilation.w);
  const std::int64_t max_h = min_h + conv_.stride.h - 1, max_w = min_w + conv_.stride.w - 1;
  if (output_size.h < min_h || output_size.h > max_h || output_size.w < min_w ||
      output_size.w > max_w)
    throw ValueError("ConvTranspose2d: requested an output size of (" +
                     std::to_string(output_size.h) + ", " + std::to_string(output_size.w) +
                     "), but valid sizes range from [" + std::to_string(min_h) + ", " +
                     std::to_string(min_w) + "] to [" + std::to_string(max_h) + ", " +
                     std::to_string(max_w) + "] (for an input of [" + std::to_string(h) + ", " +
                     std::to_string(w) + "]) (as torch)");
  return conv_transpose2d(x, weight(), conv_.bias ? bias() : Tensor(), conv_.stride, conv_.padding,
                          {output_size.h - min_h, output_size.w - min_w}, conv_.groups,
                          conv_.dilation);
}

}  // namespace hetero::nn
