// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/conv.hpp>

#include <cmath>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "conv_layer.hpp"

namespace hetero::nn {

Conv2d::Conv2d(std::int64_t in_channels, std::int64_t out_channels, Size2 kernel_size,
               Conv2dOptions conv, TensorOptions options)
    : conv_(conv) {
  const std::string what =
      detail::conv_layer_name("Conv2d", in_channels, out_channels, kernel_size);
  detail::check_conv_layer(what, in_channels, out_channels, kernel_size, conv.groups, conv.stride,
                           conv.padding, conv.dilation);
  // fan_in = in_channels / groups * KH * KW, as torch.nn.Conv2d.reset_parameters.
  const std::int64_t fan_in = in_channels / conv.groups * kernel_size.h * kernel_size.w;
  register_parameter("weight", detail::conv_uniform({out_channels, in_channels / conv.groups,
                                                     kernel_size.h, kernel_size.w},
                                                    fan_in, options));
  if (conv.bias) register_parameter("bias", detail::conv_uniform({out_channels}, fan_in, options));
}

Tensor Conv2d::forward(const Tensor& x) {
  return conv2d(x, weight(), conv_.bias ? bias() : Tensor(), conv_.stride, conv_.padding,
                conv_.dilation, conv_.groups);
}

}  // namespace hetero::nn
