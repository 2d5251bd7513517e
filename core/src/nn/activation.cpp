// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/activation.hpp>

#include <string>
#include <utility>

#include <hetero/activations.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"

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
Tensor LogSoftmax::forward(const Tensor& x) { return log_softmax(x, dim_); }
Tensor SELU::forward(const Tensor& x) { return selu(x); }

CELU::CELU(double alpha) : alpha_(alpha) {
  if (alpha == 0.0) throw ValueError("CELU: alpha cannot be 0 for CELU (it divides; as torch)");
}
Tensor CELU::forward(const Tensor& x) { return celu(x, alpha_); }
Tensor Mish::forward(const Tensor& x) { return mish(x); }
Tensor LogSigmoid::forward(const Tensor& x) { return logsigmoid(x); }
Tensor Softsign::forward(const Tensor& x) { return softsign(x); }

Hardtanh::Hardtanh(double min_val, double max_val) : min_val_(min_val), max_val_(max_val) {
  if (!(max_val > min_val))
    throw ValueError("Hardtanh: max_val (" + detail::format_double(max_val) +
                     ") must be greater than min_val (" + detail::format_double(min_val) +
                     "), as torch.nn.Hardtanh asserts");
}
Tensor Hardtanh::forward(const Tensor& x) { return hardtanh(x, min_val_, max_val_); }
Tensor ReLU6::forward(const Tensor& x) { return relu6(x); }
Tensor Hardsigmoid::forward(const Tensor& x) { return hardsigmoid(x); }
Tensor Hardswish::forward(const Tensor& x) { return hardswish(x); }

PReLU::PReLU(std::int64_t num_parameters, double init, TensorOptions options) {
  if (num_parameters < 1)
    throw ValueError("PReLU: num_parameters must be at least 1, got " +
                     std::to_string(num_parameters));
  register_parameter("weight",
                     full({num_parameters}, init, options.dtype(options.dtype_or(DType::float32))));
}
Tensor PReLU::forward(const Tensor& x) { return prelu(x, parameter("weight")); }

}  // namespace hetero::nn
