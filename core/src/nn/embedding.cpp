// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/embedding.hpp>

#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"

namespace hetero::nn {

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim,
                     std::optional<std::int64_t> padding_idx, TensorOptions options)
    : rows_(num_embeddings), width_(embedding_dim) {
  if (rows_ < 0 || width_ < 0)
    throw ShapeError("Embedding: num_embeddings and embedding_dim must be non-negative, got " +
                     std::to_string(rows_) + " and " + std::to_string(width_));
  if (padding_idx) {
    if (*padding_idx < -rows_ || *padding_idx >= rows_)
      throw ValueError("Embedding: padding_idx " + std::to_string(*padding_idx) +
                       " must be within num_embeddings " + std::to_string(rows_) + " (as torch)");
    padding_ = (*padding_idx + rows_) % rows_;
  }
  const DType t = options.dtype_or(DType::float32);
  if (!is_floating_point(t))
    throw DTypeError("Embedding: weight must have a floating dtype, got " +
                     std::string(dtype_name(t)));
  Tensor weight = randn({rows_, width_}, options.dtype(t));
  if (padding_) {
    NoGradGuard no_grad;
    detail::fill(weight.narrow(0, *padding_, 1), 0.0);
  }
  register_parameter("weight", weight);
}

Tensor Embedding::forward(const Tensor& indices) {
  return embedding(indices, parameter("weight"), padding_);
}

}  // namespace hetero::nn
