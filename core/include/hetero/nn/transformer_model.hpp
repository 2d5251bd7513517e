// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/transformer_model.hpp
/// hetero::nn::Transformer — the encoder-decoder model of Vaswani et al. 2017 ("Attention Is
/// All You Need"), as torch 1.13's torch.nn.Transformer: a TransformerEncoder of
/// num_encoder_layers layers and a final LayerNorm, whose output (the memory) a
/// TransformerDecoder of num_decoder_layers layers and a final LayerNorm attends to. Like
/// torch's, it has no embeddings or output projection (D2L 11.7 adds them around it). Its
/// children are "encoder" and "decoder" (state_dict names "encoder.layers.0.self_attn.
/// in_proj_weight", ..., "decoder.norm.bias"), in torch's order. Not thread-safe (a Module).
#include <cstdint>
#include <memory>

#include <hetero/nn/module.hpp>
#include <hetero/nn/transformer.hpp>
#include <hetero/nn/transformer_stacks.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// Transformer's arguments, torch's names and defaults. torch's flat keyword arguments
/// for the layers (dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
/// norm_first) are `layer`'s fields: Transformer({.d_model = 256, .layer = {.batch_first =
/// true}}).
struct TransformerOptions {
  std::int64_t d_model = 512;                 ///< the model width E
  std::int64_t nhead = 8;                     ///< attention heads (E % nhead == 0)
  std::int64_t num_encoder_layers = 6;        ///< encoder layers (unused with custom_encoder)
  std::int64_t num_decoder_layers = 6;        ///< decoder layers (unused with custom_decoder)
  TransformerEncoderLayerOptions layer = {};  ///< every layer's options
  std::shared_ptr<TransformerEncoder> custom_encoder = nullptr;  ///< used instead, shared
  std::shared_ptr<TransformerDecoder> custom_decoder = nullptr;  ///< used instead, shared
};

/// The encoder-decoder Transformer (see the file comment).
class HETERO_API Transformer : public Module {
 public:
  /// Builds the encoder and decoder (or takes the custom ones), then, as torch's
  /// _reset_parameters, draws every parameter of two or more dimensions — custom
  /// encoders' and decoders' too — from xavier_uniform_ (the default generator), leaving
  /// biases and LayerNorms as built. Parameters on `tensor_options`' device and dtype.
  /// Errors as the layers' constructors (ValueError for d_model % nhead != 0 or an
  /// unknown activation) and ValueError for a negative layer count.
  explicit Transformer(TransformerOptions options = {}, TensorOptions tensor_options = {});
  /// decoder(tgt, encoder(src, src_mask, src_key_padding_mask, src_is_causal), tgt_mask,
  /// memory_mask, tgt_key_padding_mask, memory_key_padding_mask, tgt_is_causal,
  /// memory_is_causal), as torch.nn.Transformer.forward. Shapes (E = d_model; batch_first
  /// swaps the first two dimensions; unbatched: without N):
  ///   src [S, N, E], tgt [T, N, E] -> [T, N, E];
  ///   src_mask [S, S], tgt_mask [T, T], memory_mask [T, S] (bool: true masks; float: added);
  ///   src_key_padding_mask [N, S], tgt_ and memory_key_padding_mask [N, T] and [N, S].
  /// ShapeError "the batch number of src and tgt must be equal" (a 3-d src whose batch
  /// size differs from tgt's) and "the feature number of src and tgt must be equal to
  /// d_model", as torch's RuntimeErrors; otherwise errors as the layers' forward.
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {},
                 const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& src_key_padding_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {}, bool src_is_causal = false,
                 bool tgt_is_causal = false, bool memory_is_causal = false);
  /// A Transformer needs src and tgt: ValueError (call forward(src, tgt)).
  Tensor forward(const Tensor& src) override;
  /// The encoder ("encoder.*").
  TransformerEncoder& encoder() const noexcept { return *encoder_; }
  /// The decoder ("decoder.*").
  TransformerDecoder& decoder() const noexcept { return *decoder_; }
  /// The model width d_model.
  std::int64_t d_model() const noexcept { return d_model_; }

  /// The causal mask for a sequence of `size` positions, as
  /// torch.nn.Transformer.generate_square_subsequent_mask: a [size, size] float tensor
  /// (`options`' dtype and device; default cpu float32) of -inf above the diagonal and 0 on
  /// and below it, to pass as tgt_mask. ValueError for a negative size; DTypeError for a
  /// non-floating dtype (-inf does not fit).
  static Tensor generate_square_subsequent_mask(std::int64_t size, TensorOptions options = {});

 private:
  std::int64_t d_model_;
  bool batch_first_;
  std::shared_ptr<TransformerEncoder> encoder_;
  std::shared_ptr<TransformerDecoder> decoder_;
};

}  // namespace hetero::nn
