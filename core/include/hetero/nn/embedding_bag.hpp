// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/embedding_bag.hpp
/// hetero::nn::embedding_bag and EmbeddingBag — sums, means or maxima of bags of embedding
/// rows without materialising the rows per bag, as torch.nn.functional.embedding_bag and
/// torch.nn.EmbeddingBag (fastText's and DLRM's sparse features).
#include <cstdint>
#include <optional>

#include <hetero/nn/embedding.hpp>
#include <hetero/tensor.hpp>

namespace hetero::nn {

/// How a bag's rows are combined (torch's mode="sum" / "mean" / "max").
enum class EmbeddingBagMode { sum, mean, max };

/// Rows of `weight` [num_embeddings, D] combined per bag, as
/// torch.nn.functional.embedding_bag: `input` (int32 or int64) is either [B, N] (each row a
/// bag; `offsets` undefined) or [L] with `offsets` [B] (int32 or int64) where bag b holds
/// input[offsets[b] : offsets[b + 1]] (the last bag up to L). With `include_last_offset`,
/// offsets has B + 1 entries and the last one ends the last bag (elements after it are left
/// out). Returns [B, D] in weight's dtype: each bag's sum (rows times `per_sample_weights`,
/// input's shape, weight's dtype, mode sum only), mean or element-wise maximum. Entries equal
/// to `padding_idx` (negative counts from the end) are left out of their bag, its count
/// included; an empty bag gives zeros. Gradients: the weight's rows (and per_sample_weights)
/// as torch's; in mode max, each element of a bag's result sends its gradient to the first
/// row holding the maximum (NaN as argmax sees it: the first NaN wins, where torch's loop
/// keeps a NaN only in first place). 16-bit dtypes are summed in float32 and rounded once.
/// One host read of `offsets` (it validates them and sizes the bags, as torch's cpu kernel
/// reads them). Mode max lays the bags out as [B, longest bag, D] (memory: B times the longest
/// bag's length times D elements, where sum and mean take L D). Not offered: max_norm,
/// scale_grad_by_freq, sparse. Unlike torch 1.13, a [B,
/// 0] input gives zeros [B, D] (torch fails with "step must be nonzero") and bfloat16 weights
/// are accepted.
/// Throws: ShapeError for an input that is not 1-D or 2-D, a weight that is not 2-D, offsets
/// that are not 1-D, offsets given with a 2-D input or missing with a 1-D one (torch's
/// ValueErrors), or per_sample_weights of another shape; DTypeError for non-integer input or
/// offsets, a non-floating weight or per_sample_weights of another dtype; ValueError for
/// offsets[0] != 0, decreasing offsets, a last offset beyond L, per_sample_weights in mode
/// mean or max (torch: NotImplementedError), or padding_idx out of [-num_embeddings,
/// num_embeddings); IndexError for an index outside [0, num_embeddings); DeviceMismatchError
/// for tensors on different devices.
HETERO_API Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                                const Tensor& offsets = {},
                                EmbeddingBagMode mode = EmbeddingBagMode::mean,
                                const Tensor& per_sample_weights = {},
                                bool include_last_offset = false,
                                std::optional<std::int64_t> padding_idx = std::nullopt);

/// EmbeddingBag's arguments beside the table's size, torch.nn.EmbeddingBag's names and
/// defaults.
struct EmbeddingBagOptions {
  EmbeddingBagMode mode = EmbeddingBagMode::mean;  ///< how a bag's rows are combined
  bool include_last_offset = false;  ///< offsets [B + 1], the last ending the last bag
  std::optional<std::int64_t> padding_idx = std::nullopt;  ///< a row left out of every bag
};

/// A table of embeddings read in bags, as torch.nn.EmbeddingBag: weight [num_embeddings,
/// embedding_dim] initialised N(0, 1) with the padding row zero (Embedding's), forward the
/// embedding_bag of its arguments.
class HETERO_API EmbeddingBag : public Embedding {
 public:
  /// Errors as Embedding's; `options` are checked at forward().
  EmbeddingBag(std::int64_t num_embeddings, std::int64_t embedding_dim,
               EmbeddingBagOptions options = {}, TensorOptions tensor_options = {});
  /// embedding_bag(input, weight, offsets, mode, per_sample_weights, include_last_offset,
  /// padding_idx): [B, embedding_dim]; throws as that function.
  Tensor forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights = {});
  /// forward(input, {}): the bags of a [B, N] input.
  Tensor forward(const Tensor& input) override;

 private:
  EmbeddingBagOptions o_;
};

}  // namespace hetero::nn
