// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/fold.hpp>

#include <hetero/fold.hpp>

namespace hetero::nn {

Unfold::Unfold(Size2 kernel_size, Size2 dilation, Size2 padding, Size2 stride)
    : kernel_size_(kernel_size), dilation_(dilation), padding_(padding), stride_(stride) {}
Tensor Unfold::forward(const Tensor& x) {
  return unfold(x, kernel_size_, dilation_, padding_, stride_);
}

Fold::Fold(Size2 output_size, Size2 kernel_size, Size2 dilation, Size2 padding, Size2 stride)
    : output_size_(output_size),
      kernel_size_(kernel_size),
      dilation_(dilation),
      padding_(padding),
      stride_(stride) {}
Tensor Fold::forward(const Tensor& x) {
  return fold(x, output_size_, kernel_size_, dilation_, padding_, stride_);
}

}  // namespace hetero::nn
