// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/activation.hpp>

#include <hetero/ops.hpp>

namespace hetero::nn {

Tensor ReLU::forward(const Tensor& x) { return relu(x); }
Tensor Sigmoid::forward(const Tensor& x) { return sigmoid(x); }
Tensor Tanh::forward(const Tensor& x) { return tanh(x); }
Tensor Softmax::forward(const Tensor& x) { return softmax(x, dim_); }

}  // namespace hetero::nn
