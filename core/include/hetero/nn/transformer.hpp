// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/transformer.hpp
/// hetero::nn::TransformerEncoderLayer — self-attention and a feed-forward block, each with
/// a residual connection and LayerNorm (Vaswani et al. 2017), as torch 1.13's
/// torch.nn.TransformerEncoderLayer — and TransformerDecoderLayer, which adds attention over
/// the encoder's output between the two (D2L 11.7's decoder block). The encoder layer:
///   post-norm (norm_first false): x = norm1(x + sa(x)); x = norm2(x + ff(x))
///   pre-norm  (norm_first true):  x = x + sa(norm1(x)); x = x + ff(norm2(x))
/// with sa(x) = dropout1(self_attn(x, x, x, masks)) and
/// ff(x) = dropout2(linear2(dropout(activation(linear1(x))))). Children and state_dict
/// names are torch's: self_attn, linear1, dropout, linear2, norm1, norm2, dropout1, dropout2.
/// Stacks of them are <hetero/nn/transformer_stacks.hpp>; the encoder-decoder model
/// <hetero/nn/transformer_model.hpp>.
#include <cstdint>
#include <memory>
#include <string>

#include <hetero/nn/dropout.hpp>
#include <hetero/nn/layer_norm.hpp>
#include <hetero/nn/linear.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/nn/multihead_attention.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// TransformerEncoderLayer's and TransformerDecoderLayer's arguments, torch's names and
/// defaults.
struct TransformerEncoderLayerOptions {
  std::int64_t dim_feedforward = 2048;  ///< the feed-forward block's hidden width
  double dropout = 0.1;                 ///< dropout probability (attention and blocks)
  std::string activation = "relu";      ///< "relu" or "gelu"
  double layer_norm_eps = 1e-5;         ///< the LayerNorms' eps
  bool batch_first = false;             ///< input [N, S, E] instead of [S, N, E]
  bool norm_first = false;              ///< LayerNorm before each block (pre-norm)
};

/// One encoder layer, as torch.nn.TransformerEncoderLayer: self-attention and a
/// feed-forward block, each with dropout, a residual connection and a LayerNorm (see the
/// file comment).
class HETERO_API TransformerEncoderLayer : public Module {
 public:
  /// ValueError for an activation other than "relu"/"gelu" (torch's message) and as
  /// MultiheadAttention's, Linear's and LayerNorm's constructors.
  TransformerEncoderLayer(std::int64_t d_model, std::int64_t nhead,
                          TransformerEncoderLayerOptions options = {},
                          TensorOptions tensor_options = {});
  /// src [S, N, E] ([N, S, E] with batch_first, [S, E] unbatched); src_mask and
  /// src_key_padding_mask as MultiheadAttention's attn_mask and key_padding_mask;
  /// is_causal builds the causal mask when src_mask is absent. Same shape out.
  Tensor forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask = {},
                 bool is_causal = false);
  /// forward(src, {}, {}).
  Tensor forward(const Tensor& src) override;
  /// The self-attention block (its parameters are "self_attn.*").
  MultiheadAttention& self_attn() const noexcept { return *self_attn_; }
  /// A new layer with this one's sizes and options and a copy of its parameters (values,
  /// device, dtype, requires_grad) and training mode, sharing nothing with it, as
  /// copy.deepcopy(layer) (how torch.nn.TransformerEncoder makes its layers).
  /// OutOfMemoryError when the copy does not fit.
  std::shared_ptr<TransformerEncoderLayer> clone() const;

 private:
  Tensor sa_block(const Tensor& x, const Tensor& mask, const Tensor& padding, bool is_causal);
  Tensor ff_block(const Tensor& x);
  std::int64_t d_model_, nhead_;
  TransformerEncoderLayerOptions options_;
  std::shared_ptr<MultiheadAttention> self_attn_;
  std::shared_ptr<Linear> linear1_, linear2_;
  std::shared_ptr<Dropout> dropout_, dropout1_, dropout2_;
  std::shared_ptr<LayerNorm> norm1_, norm2_;
};

/// TransformerDecoderLayer's arguments: the encoder layer's (torch's are the same).
using TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;

/// One decoder layer, as torch.nn.TransformerDecoderLayer (torch 1.13; the is_causal flags
/// of torch 2):
///   post-norm: x = norm1(x + sa(x)); x = norm2(x + mha(x, memory)); x = norm3(x + ff(x))
///   pre-norm:  x = x + sa(norm1(x)); x = x + mha(norm2(x), memory); x = x + ff(norm3(x))
/// with sa(x) = dropout1(self_attn(x, x, x)), mha(x, m) = dropout2(multihead_attn(x, m, m)),
/// ff(x) = dropout3(linear2(dropout(activation(linear1(x))))). Children and state_dict names
/// are torch's: self_attn, multihead_attn, linear1, dropout, linear2, norm1, norm2, norm3,
/// dropout1, dropout2, dropout3. Not thread-safe (a Module).
class HETERO_API TransformerDecoderLayer : public Module {
 public:
  /// Errors as TransformerEncoderLayer's constructor.
  TransformerDecoderLayer(std::int64_t d_model, std::int64_t nhead,
                          TransformerDecoderLayerOptions options = {},
                          TensorOptions tensor_options = {});
  /// tgt [T, N, E] ([N, T, E] with batch_first, [T, E] unbatched) attending to memory
  /// [S, N, E] (the encoder's output, likewise). tgt_mask [T, T] and memory_mask [T, S] are
  /// MultiheadAttention's attn_mask for the two attentions (bool: true masks; float: added),
  /// the key padding masks [N, T] and [N, S] its key_padding_mask; tgt_is_causal /
  /// memory_is_causal build the causal mask where the mask is absent. Returns tgt's shape.
  /// Errors as MultiheadAttention's forward (ShapeError for shapes that do not fit).
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {}, bool tgt_is_causal = false,
                 bool memory_is_causal = false);
  /// A decoder layer needs the encoder's memory: ValueError (call forward(tgt, memory)).
  Tensor forward(const Tensor& tgt) override;
  /// A new, independent copy, as TransformerEncoderLayer::clone (copy.deepcopy; how
  /// torch.nn.TransformerDecoder makes its layers).
  std::shared_ptr<TransformerDecoderLayer> clone() const;

 private:
  std::int64_t d_model_, nhead_;
  TransformerDecoderLayerOptions options_;
  std::shared_ptr<MultiheadAttention> self_attn_, multihead_attn_;
  std::shared_ptr<Linear> linear1_, linear2_;
  std::shared_ptr<Dropout> dropout_, dropout1_, dropout2_, dropout3_;
  std::shared_ptr<LayerNorm> norm1_, norm2_, norm3_;
};

}  // namespace hetero::nn
