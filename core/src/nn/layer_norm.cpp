// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/layer_norm.hpp>

#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"
#include "normalization.hpp"

namespace hetero::nn {
LayerNorm::LayerNorm(Shape normalized_shape, double eps, bool elementwise_affine,
                     TensorOptions options)
    : shape_(std::move(normalized_shape)), eps_(eps), affine_(elementwise_affine) {
  if (shape_.empty()) throw ValueError("LayerNorm: normalized_shape must not be empty");
  for (auto d : shape_)
    if (d < 0)  // a zero size is an empty normalisation, as torch
      throw ValueError("LayerNorm: normalized_shape " + detail::shape_str(shape_) +
                       " must not be negative");
  if (!(eps >= 0)) throw ValueError("LayerNorm: eps must be >= 0, got " + std::to_string(eps));
  if (affine_) {
    const TensorOptions o = options.dtype(options.dtype_or(DType::float32));
    register_parameter("weight", ones(shape_, o));
    register_parameter("bias", zeros(shape_, o));
  }
}

Tensor LayerNorm::forward(const Tensor& x_in) {
  const auto k = static_cast<std::int64_t>(shape_.size());
  if (!x_in.defined() || x_in.dim() < k ||
      !std::equal(shape_.begin(), shape_.end(), x_in.shape().end() - k))
    throw ShapeError("LayerNorm: expected input with trailing shape " + detail::shape_str(shape_) +
                     ", got " +
                     (x_in.defined() ? detail::shape_str(x_in.shape()) : std::string("undefined")));
  const Tensor x = norm_detail::widened_input(x_in, "LayerNorm");
  if (affine_) norm_detail::check_affine(x_in, weight(), bias(), "LayerNorm");
  // The normalised dimensions as one: [..., n].
  const Tensor flat = x.flatten(x.dim() - k, x.dim() - 1);
  const Tensor centred = flat - mean(flat, -1, true);
  const Tensor variance = mean(centred * centred, -1, true);
  Tensor y = (centred / sqrt(variance + eps_)).reshape(x.shape());
  if (affine_) y = y * weight().to(y.dtype()) + bias().to(y.dtype());
  return y.to(x_in.dtype());
}

}  // namespace hetero::nn
