// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/conv.hpp>

#include <cmath>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

namespace hetero::nn {

Conv2d::Conv2d(std::int64_t in_channels, std::int64_t out_channels, Size2 kernel_size,
               Conv2dOptions conv, TensorOptions options)
    : conv_(conv) {
  const std::string what = "Conv2d(" + std::to_string(in_channels) + ", " +
                           std::to_string(out_channels) + ", [" + std::to_string(kernel_size.h) +
                           ", " + std::to_string(kernel_size.w) + "])";
  if (in_channels <= 0 || out_channels <= 0 || kernel_size.h <= 0 || kernel_size.w <= 0)
    throw ValueError(what + ": channel counts and kernel sizes must be positive");
  if (conv.groups <= 0 || in_channels % conv.groups != 0 || out_channels % conv.groups != 0)
    throw ValueError(what + ": groups (" + std::to_string(conv.groups) +
                     ") must be positive and divide both channel counts");
  if (conv.stride.h < 1 || conv.stride.w < 1 || conv.dilation.h < 1 || conv.dilation.w < 1 ||
      conv.padding.h < 0 || conv.padding.w < 0)
    throw ValueError(what + ": stride and dilation must be >= 1 and padding >= 0");
  // U(-bound, bound), bound = 1/sqrt(fan_in), as torch.nn.Conv2d.reset_parameters.
  const std::int64_t fan_in = in_channels / conv.groups * kernel_size.h * kernel_size.w;
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  const TensorOptions o = options.dtype(options.dtype_or(DType::float32));
  register_parameter(
      "weight", rand({out_channels, in_channels / conv.groups, kernel_size.h, kernel_size.w}, o) *
                        (2 * bound) -
                    bound);
  if (conv.bias) register_parameter("bias", rand({out_channels}, o) * (2 * bound) - bound);
}

Tensor Conv2d::forward(const Tensor& x) {
  return conv2d(x, weight(), conv_.bias ? bias() : Tensor(), conv_.stride, conv_.padding,
                conv_.dilation, conv_.groups);
}

}  // namespace hetero::nn
