// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/activation.hpp>

#include <utility>

#include <hetero/activations.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

namespace hetero::nn {

Tensor ReLU::forward(const Tensor& x) { return relu(x); }
Tensor Sigmoid::forward(const Tensor& x) { return sigmoid(x); }
Tensor Tanh::forward(const Tensor& x) { return tanh(x); }
Tensor Softmax::forward(const Tensor& x) { return softmax(x, dim_); }

GELU::GELU(std::string approximate) : approximate_(std::move(approximate)) {
  if (approximate_ != "none" && approximate_ != "tanh")
    throw ValueError("GELU: approximate argument must be either none or tanh, got '" +
                     approximate_ + "' (as torch)");
}
Tensor GELU::forward(const Tensor& x) { return gelu(x, approximate_); }
Tensor SiLU::forward(const Tensor& x) { return silu(x); }
Tensor LeakyReLU::forward(const Tensor& x) { return leaky_relu(x, negative_slope_); }
Tensor ELU::forward(const Tensor& x) { return elu(x, alpha_); }
Tensor Softplus::forward(const Tensor& x) { return softplus(x, beta_, threshold_); }

}  // namespace hetero::nn
