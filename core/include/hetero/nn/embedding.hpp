// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/embedding.hpp
/// hetero::nn::Embedding — a lookup table of vectors, as torch.nn.Embedding.
#include <cstdint>
#include <optional>

#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// weight: [num_embeddings, embedding_dim], initialised N(0, 1) as torch.nn.Embedding, in
/// options' dtype (default float32; a floating dtype) on options' device; the row
/// `padding_idx` (negative counts from the end), when given, starts at zero and takes no
/// gradient. Input: indices of any shape (int32 or int64) -> [*, embedding_dim]
/// (hetero::embedding). The gradient of weight is dense (torch's sparse=false).
class HETERO_API Embedding : public Module {
 public:
  /// ShapeError for a negative size (zero is allowed, as torch: no rows, or rows of no
  /// elements); ValueError for padding_idx out of
  /// [-num_embeddings, num_embeddings); DTypeError for a non-floating dtype.
  Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim,
            std::optional<std::int64_t> padding_idx = std::nullopt, TensorOptions options = {});
  /// The rows at `indices`: IndexError for an index outside [0, num_embeddings),
  /// DTypeError for a non-integer index, DeviceMismatchError when indices and the weight
  /// are on different devices.
  Tensor forward(const Tensor& indices) override;
  /// Module::to(d), returning this layer.
  Embedding& to(const Device& d) {
    Module::to(d);
    return *this;
  }
  /// Rows of the weight (the index range).
  std::int64_t num_embeddings() const noexcept { return rows_; }
  /// Width of each row.
  std::int64_t embedding_dim() const noexcept { return width_; }
  /// Normalised to [0, num_embeddings) when given.
  std::optional<std::int64_t> padding_idx() const noexcept { return padding_; }

 private:
  std::int64_t rows_, width_;
  std::optional<std::int64_t> padding_;
};

}  // namespace hetero::nn
