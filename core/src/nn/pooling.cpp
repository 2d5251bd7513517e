// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/pooling.hpp>

#include <hetero/error.hpp>

namespace hetero::nn {

MaxPool2d::MaxPool2d(Size2 kernel_size, MaxPool2dOptions options)
    : kernel_(kernel_size), o_(options) {}

Tensor MaxPool2d::forward(const Tensor& x) {
  return max_pool2d(x, kernel_, o_.stride, o_.padding, o_.dilation, o_.ceil_mode);
}

AvgPool2d::AvgPool2d(Size2 kernel_size, AvgPool2dOptions options)
    : kernel_(kernel_size), o_(options) {}

Tensor AvgPool2d::forward(const Tensor& x) {
  return avg_pool2d(x, kernel_, o_.stride, o_.padding, o_.ceil_mode, o_.count_include_pad,
                    o_.divisor_override);
}

Tensor AdaptiveAvgPool2d::forward(const Tensor& x) { return adaptive_avg_pool2d(x, size_); }
Tensor AdaptiveMaxPool2d::forward(const Tensor& x) { return adaptive_max_pool2d(x, size_); }
std::pair<Tensor, Tensor> AdaptiveMaxPool2d::forward_with_indices(const Tensor& x) {
  return adaptive_max_pool2d_with_indices(x, size_);
}

std::pair<Tensor, Tensor> MaxPool2d::forward_with_indices(const Tensor& x) {
  return max_pool2d_with_indices(x, kernel_, o_.stride, o_.padding, o_.dilation, o_.ceil_mode);
}

Tensor MaxUnpool2d::forward(const Tensor& x, const Tensor& indices,
                            std::optional<Size2> output_size) {
  return max_unpool2d(x, indices, kernel_, stride_, padding_, output_size);
}

Tensor MaxUnpool2d::forward(const Tensor&) {
  throw ValueError(
      "MaxUnpool2d: the layer takes the values and their indices; call "
      "forward(x, indices)");
}

}  // namespace hetero::nn
