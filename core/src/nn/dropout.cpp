// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/dropout.hpp>

#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

namespace hetero::nn {

Dropout::Dropout(double p) : p_(p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError("Dropout: dropout probability has to be between 0 and 1, but got " +
                     std::to_string(p) + " (as torch)");
}

Tensor dropout(const Tensor& x, double p, bool training) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError("dropout probability has to be between 0 and 1, but got " + std::to_string(p) +
                     " (as torch)");
  if (!training || p == 0.0) return x;
  if (p == 1.0) return x * 0;  // zeros of x's dtype (an integer 0 keeps integers, as torch)
  if (!is_floating_point(x.dtype()))
    throw DTypeError("dropout: the scaled result is floating, and cannot be written to x's " +
                     std::string(dtype_name(x.dtype())) +
                     " (as torch: \"result type Float can't be cast to the desired output type\")");
  // keep = 1 where u > p (probability 1 - p), as a 0/1 tensor: the cast to bool is
  // `v != 0` and relu(u - p) is non-zero exactly when u > p.
  const Tensor u = rand(x.shape(), TensorOptions(x.device()).dtype(DType::float32));
  const Tensor keep = relu(u - p).to(DType::bool_).to(x.dtype());
  return x * keep * (1.0 / (1.0 - p));
}

Tensor Dropout::forward(const Tensor& x) { return dropout(x, p_, is_training()); }

}  // namespace hetero::nn
