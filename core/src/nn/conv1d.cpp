// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/conv1d.hpp>

#include <string>

#include <hetero/error.hpp>

#include "conv_layer.hpp"

namespace hetero::nn {

Conv1d::Conv1d(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size,
               Conv1dOptions conv, TensorOptions options)
    : conv_(conv) {
  const std::string what = "Conv1d(" + std::to_string(in_channels) + ", " +
                           std::to_string(out_channels) + ", " + std::to_string(kernel_size) + ")";
  detail::check_conv_layer(what, in_channels, out_channels, {1, kernel_size}, conv.groups,
                           {1, conv.stride}, {0, conv.padding}, {1, conv.dilation});
  // fan_in = in_channels / groups * K, as torch.nn.Conv1d.reset_parameters.
  const std::int64_t fan_in = in_channels / conv.groups * kernel_size;
  register_parameter(
      "weight", detail::conv_uniform({out_channels, in_channels / conv.groups, kernel_size}, fan_in,
                                     options));
  if (conv.bias) register_parameter("bias", detail::conv_uniform({out_channels}, fan_in, options));
}

Tensor Conv1d::forward(const Tensor& x) {
  return conv1d(x, weight(), conv_.bias ? bias() : Tensor(), conv_.stride, conv_.padding,
                conv_.dilation, conv_.groups);
}

Tensor MaxPool1d::forward(const Tensor& x) {
  return max_pool1d(x, kernel_, stride_, padding_, dilation_, ceil_mode_);
}

std::pair<Tensor, Tensor> MaxPool1d::forward_with_indices(const Tensor& x) {
  return max_pool1d_with_indices(x, kernel_, stride_, padding_, dilation_, ceil_mode_);
}

Tensor MaxUnpool1d::forward(const Tensor& x, const Tensor& indices,
                            std::optional<std::int64_t> output_size) {
  return max_unpool1d(x, indices, kernel_, stride_, padding_, output_size);
}

Tensor MaxUnpool1d::forward(const Tensor&) {
  throw ValueError(
      "MaxUnpool1d: the layer takes the values and their indices; call "
      "forward(x, indices)");
}

Tensor AvgPool1d::forward(const Tensor& x) {
  return avg_pool1d(x, kernel_, stride_, padding_, ceil_mode_, count_include_pad_);
}

Tensor AdaptiveAvgPool1d::forward(const Tensor& x) { return adaptive_avg_pool1d(x, size_); }
Tensor AdaptiveMaxPool1d::forward(const Tensor& x) { return adaptive_max_pool1d(x, size_); }
std::pair<Tensor, Tensor> AdaptiveMaxPool1d::forward_with_indices(const Tensor& x) {
  return adaptive_max_pool1d_with_indices(x, size_);
}

}  // namespace hetero::nn
