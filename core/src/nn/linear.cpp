// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/linear.hpp>

#include <cmath>
#include <sstream>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

namespace hetero::nn {

Linear::Linear(std::int64_t in_features, std::int64_t out_features, bool bias,
               TensorOptions options)
    : in_(in_features), out_(out_features), has_bias_(bias) {
  if (in_features < 0 || out_features < 0)
    throw ShapeError("Linear(" + std::to_string(in_features) + ", " + std::to_string(out_features) +
                     "): feature counts must be non-negative");
  // U(-bound, bound), bound = 1/sqrt(in_features), as torch.nn.Linear.reset_parameters;
  // with no input features the bias is 0 (torch's bound 0) and y = bias.
  const double bound = in_features > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features)) : 0.0;
  const TensorOptions o = options.dtype(options.dtype_or(DType::float32));
  register_parameter("weight", rand({out_features, in_features}, o) * (2 * bound) - bound);
  if (bias) register_parameter("bias", rand({out_features}, o) * (2 * bound) - bound);
}

Tensor Linear::forward(const Tensor& x) {
  if (!x.defined() || x.dim() == 0 || x.size(-1) != in_)
    throw ShapeError("Linear(" + std::to_string(in_) + ", " + std::to_string(out_) +
                     "): expected input with last dimension " + std::to_string(in_) + ", got shape " +
                     (x.defined() ? [&] { std::ostringstream os; os << x.shape(); return os.str(); }() : "undefined"));
  Tensor y = matmul(x, weight().t());
  return has_bias_ ? y + bias() : y;
}

}  // namespace hetero::nn
