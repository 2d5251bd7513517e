// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/conv3d.hpp>

#include <string>

#include <hetero/error.hpp>

#include "conv_layer.hpp"

namespace hetero::nn {

namespace {

// "Conv3d(3, 64, [3, 3, 3])", checked as conv_layer.hpp's check_conv_layer (its 2-d checks
// over (D, H), then W).
std::string checked_name(const char* kind, std::int64_t in_channels, std::int64_t out_channels,
                         Size3 k, std::int64_t groups, Size3 s, Size3 p, Size3 d) {
  const std::string what = std::string(kind) + "(" + std::to_string(in_channels) + ", " +
                           std::to_string(out_channels) + ", [" + std::to_string(k.d) + ", " +
                           std::to_string(k.h) + ", " + std::to_string(k.w) + "])";
  detail::check_conv_layer(what, in_channels, out_channels, {k.d, k.h}, groups, {s.d, s.h},
                           {p.d, p.h}, {d.d, d.h});
  detail::check_conv_layer(what, in_channels, out_channels, k.w, groups, s.w, p.w, d.w);
  return what;
}

}  // namespace

Conv3d::Conv3d(std::int64_t in_channels, std::int64_t out_channels, Size3 kernel_size,
               Conv3dOptions conv, TensorOptions options)
    : conv_(conv) {
  checked_name("Conv3d", in_channels, out_channels, kernel_size, conv.groups, conv.stride,
               conv.padding, conv.dilation);
  // fan_in = in_channels / groups * KD * KH * KW, as torch.nn.Conv3d.reset_parameters.
  const std::int64_t fan_in =
      in_channels / conv.groups * kernel_size.d * kernel_size.h * kernel_size.w;
  register_parameter("weight", detail::conv_uniform({out_channels, in_channels / conv.groups,
                                                     kernel_size.d, kernel_size.h, kernel_size.w},
                                                    fan_in, options));
  if (conv.bias) register_parameter("bias", detail::conv_uniform({out_channels}, fan_in, options));
}

Tensor Conv3d::forward(const Tensor& x) {
  return conv3d(x, weight(), conv_.bias ? bias() : Tensor(), conv_.stride, conv_.padding,
                conv_.dilation, conv_.groups);
}

ConvTranspose3d::ConvTranspose3d(std::int64_t in_channels, std::int64_t out_channels,
                                 Size3 kernel_size, ConvTranspose3dOptions conv,
                                 TensorOptions options)
    : conv_(conv) {
  const std::string what = checked_name("ConvTranspose3d", in_channels, out_channels, kernel_size,
                                        conv.groups, conv.stride, conv.padding, conv.dilation);
  const Size3 op = conv.output_padding, s = conv.stride, d = conv.dilation;
  if (op.d < 0 || op.h < 0 || op.w < 0) throw ValueError(what + ": output_padding must be >= 0");
  if ((op.d >= s.d && op.d >= d.d) || (op.h >= s.h && op.h >= d.h) || (op.w >= s.w && op.w >= d.w))
    throw ValueError(what + ": output padding must be smaller than either stride or dilation");
  // fan_in from the weight's dimension 1, as torch.nn.ConvTranspose3d.reset_parameters.
  const std::int64_t fan_in =
      out_channels / conv.groups * kernel_size.d * kernel_size.h * kernel_size.w;
  register_parameter("weight", detail::conv_uniform({in_channels, out_channels / conv.groups,
                                                     kernel_size.d, kernel_size.h, kernel_size.w},
                                                    fan_in, options));
  if (conv.bias) register_parameter("bias", detail::conv_uniform({out_channels}, fan_in, options));
}

Tensor ConvTranspose3d::forward(const Tensor& x) {
  return conv_transpose3d(x, weight(), conv_.bias ? bias() : Tensor(), conv_.stride, conv_.padding,
                          conv_.output_padding, conv_.groups, conv_.dilation);
}

Tensor MaxPool3d::forward(const Tensor& x) {
  return max_pool3d(x, kernel_, o_.stride, o_.padding, o_.dilation, o_.ceil_mode);
}

std::pair<Tensor, Tensor> MaxPool3d::forward_with_indices(const Tensor& x) {
  return max_pool3d_with_indices(x, kernel_, o_.stride, o_.padding, o_.dilation, o_.ceil_mode);
}

Tensor MaxUnpool3d::forward(const Tensor& x, const Tensor& indices,
                            std::optional<Size3> output_size) {
  return max_unpool3d(x, indices, kernel_, stride_, padding_, output_size);
}

Tensor MaxUnpool3d::forward(const Tensor&) {
  throw ValueError(
      "MaxUnpool3d: the layer takes the values and their indices; call "
      "forward(x, indices)");
}

Tensor AvgPool3d::forward(const Tensor& x) {
  return avg_pool3d(x, kernel_, o_.stride, o_.padding, o_.ceil_mode, o_.count_include_pad,
                    o_.divisor_override);
}

Tensor AdaptiveAvgPool3d::forward(const Tensor& x) { return adaptive_avg_pool3d(x, size_); }
Tensor AdaptiveMaxPool3d::forward(const Tensor& x) { return adaptive_max_pool3d(x, size_); }
std::pair<Tensor, Tensor> AdaptiveMaxPool3d::forward_with_indices(const Tensor& x) {
  return adaptive_max_pool3d_with_indices(x, size_);
}

}  // namespace hetero::nn
