// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/transformer_stacks.hpp
/// hetero::nn::TransformerEncoder and TransformerDecoder — num_layers copies of one encoder
/// (decoder) layer applied in turn, then an optional LayerNorm, as torch 1.13's
/// torch.nn.TransformerEncoder / TransformerDecoder (D2L 11.7's encoder and decoder). Each
/// copy starts with the given layer's parameters (torch deep-copies the layer: every layer
/// of a new stack is equal until trained; nn::Transformer re-initialises them). Children and
/// state_dict names are torch's: "layers.<i>.<layer's names>", then "norm.weight",
/// "norm.bias" where a norm is given. Not thread-safe (Modules).
#include <cstddef>
#include <cstdint>
#include <memory>

#include <hetero/nn/containers.hpp>
#include <hetero/nn/layer_norm.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/nn/transformer.hpp>

namespace hetero::nn {

/// A stack of encoder layers (see the file comment).
class HETERO_API TransformerEncoder : public Module {
 public:
  /// num_layers copies of `encoder_layer` (TransformerEncoderLayer::clone; the argument
  /// itself is not a child), then `norm` (shared, not copied; null: none). ValueError for
  /// num_layers < 0 (torch's range() makes that an empty stack silently). Zero layers give
  /// the input (or norm(input)) back (torch 1.13's encoder forward raises IndexError "index
  /// 0 is out of range" there; its decoder's gives the input back).
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, std::int64_t num_layers,
                     std::shared_ptr<LayerNorm> norm = nullptr);
  /// src through every layer with the same src_mask, src_key_padding_mask and is_causal
  /// (see TransformerEncoderLayer::forward for shapes and dtypes), then the norm. Returns
  /// src's shape. Errors as the layers' forward. torch 1.13's inference fast path
  /// (eval mode, no grad, batch_first, a key padding mask: nested tensors) returns 0 at the
  /// padded positions of its output before the norm; hetero computes them as the
  /// training path does (their values are what the masked keys do not affect).
  Tensor forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask = {},
                 bool is_causal = false);
  /// forward(src, {}, {}).
  Tensor forward(const Tensor& src) override;
  /// Layer i ("layers.<i>"); IndexError when i >= num_layers().
  TransformerEncoderLayer& layer(std::size_t i) const;
  /// Number of layers.
  std::size_t num_layers() const noexcept { return layers_->size(); }
  /// The final LayerNorm, null when none was given.
  LayerNorm* norm() const noexcept { return norm_.get(); }

 private:
  std::shared_ptr<ModuleList> layers_;
  std::shared_ptr<LayerNorm> norm_;
};

/// A stack of decoder layers (see the file comment).
class HETERO_API TransformerDecoder : public Module {
 public:
  /// num_layers copies of `decoder_layer`, then `norm`; as TransformerEncoder's.
  TransformerDecoder(const TransformerDecoderLayer& decoder_layer, std::int64_t num_layers,
                     std::shared_ptr<LayerNorm> norm = nullptr);
  /// tgt through every layer, each attending to the same memory with the same masks and
  /// flags (see TransformerDecoderLayer::forward for shapes and dtypes), then the norm.
  /// Returns tgt's shape. Errors as the layers' forward.
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {}, bool tgt_is_causal = false,
                 bool memory_is_causal = false);
  /// A decoder needs the encoder's memory: ValueError (call forward(tgt, memory)).
  Tensor forward(const Tensor& tgt) override;
  /// Layer i ("layers.<i>"); IndexError when i >= num_layers().
  TransformerDecoderLayer& layer(std::size_t i) const;
  /// Number of layers.
  std::size_t num_layers() const noexcept { return layers_->size(); }
  /// The final LayerNorm, null when none was given.
  LayerNorm* norm() const noexcept { return norm_.get(); }

 private:
  std::shared_ptr<ModuleList> layers_;
  std::shared_ptr<LayerNorm> norm_;
};

}  // namespace hetero::nn
