// SPDX-License-Identifier: Apache-2.0
// nn::TransformerEncoder and nn::TransformerDecoder (<hetero/nn/transformer_stacks.hpp>), as
// torch 1.13's torch/nn/modules/transformer.py: the layers as deep copies in a ModuleList
// named "layers", then the optional norm.
#include <hetero/nn/transformer_stacks.hpp>

#include <string>

#include <hetero/error.hpp>

namespace hetero::nn {

namespace {

// A ModuleList of num_layers clones of `layer`; ValueError naming `who` for a negative count.
template <class Layer>
std::shared_ptr<ModuleList> clones(const Layer& layer, std::int64_t num_layers, const char* who) {
  if (num_layers < 0)
    throw ValueError(std::string(who) + ": num_layers must be non-negative, got " +
                     std::to_string(num_layers));
  auto list = std::make_shared<ModuleList>();
  for (std::int64_t i = 0; i < num_layers; ++i) list->push_back(layer.clone());
  return list;
}

}  // namespace

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayer& encoder_layer,
                                       std::int64_t num_layers, std::shared_ptr<LayerNorm> norm)
    : layers_(clones(encoder_layer, num_layers, "TransformerEncoder")), norm_(std::move(norm)) {
  register_module("layers", layers_);
  if (norm_) register_module("norm", norm_);
}

Tensor TransformerEncoder::forward(const Tensor& src, const Tensor& mask,
                                   const Tensor& src_key_padding_mask, bool is_causal) {
  Tensor x = src;
  for (std::size_t i = 0; i < layers_->size(); ++i)
    x = layer(i).forward(x, mask, src_key_padding_mask, is_causal);
  return norm_ ? norm_->forward(x) : x;
}

Tensor TransformerEncoder::forward(const Tensor& src) { return forward(src, {}, {}); }

TransformerEncoderLayer& TransformerEncoder::layer(std::size_t i) const {
  return *layers_->at<TransformerEncoderLayer>(i);  // IndexError out of range
}

TransformerDecoder::TransformerDecoder(const TransformerDecoderLayer& decoder_layer,
                                       std::int64_t num_layers, std::shared_ptr<LayerNorm> norm)
    : layers_(clones(decoder_layer, num_layers, "TransformerDecoder")), norm_(std::move(norm)) {
  register_module("layers", layers_);
  if (norm_) register_module("norm", norm_);
}

Tensor TransformerDecoder::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                   const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                   const Tensor& memory_key_padding_mask, bool tgt_is_causal,
                                   bool memory_is_causal) {
  Tensor x = tgt;
  for (std::size_t i = 0; i < layers_->size(); ++i)
    x = layer(i).forward(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                         memory_key_padding_mask, tgt_is_causal, memory_is_causal);
  return norm_ ? norm_->forward(x) : x;
}

Tensor TransformerDecoder::forward(const Tensor&) {
  throw ValueError(
      "TransformerDecoder::forward(tgt): a decoder attends to the encoder's output; call "
      "forward(tgt, memory, ...) (torch: missing argument 'memory')");
}

TransformerDecoderLayer& TransformerDecoder::layer(std::size_t i) const {
  return *layers_->at<TransformerDecoderLayer>(i);  // IndexError out of range
}

}  // namespace hetero::nn
