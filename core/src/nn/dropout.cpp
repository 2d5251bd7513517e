// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/dropout.hpp>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

namespace hetero::nn {

Dropout::Dropout(double p) : p_(p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ShapeError("Dropout: p must be in [0, 1], got " + std::to_string(p));
}

Tensor dropout(const Tensor& x, double p, bool training) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError("dropout probability has to be between 0 and 1, but got " + std::to_string(p) +
                     " (as torch)");
  if (!training || p == 0.0) return x;
  if (p == 1.0) return x * 0.0;
  // keep = 1 where u > p (probability 1 - p), as a 0/1 tensor: the cast to bool is
  // `v != 0` and relu(u - p) is non-zero exactly when u > p.
  const Tensor u = rand(x.shape(), TensorOptions(x.device()).dtype(DType::float32));
  const Tensor keep = relu(u - p).to(DType::bool_).to(x.dtype());
  return x * keep * (1.0 / (1.0 - p));
}

Tensor Dropout::forward(const Tensor& x) { return dropout(x, p_, is_training()); }

}  // namespace hetero::nn
