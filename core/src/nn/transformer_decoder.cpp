// SPDX-License-Identifier: Apache-2.0
// nn::TransformerDecoderLayer (<hetero/nn/transformer.hpp>), as torch 1.13's
// torch/nn/modules/transformer.py: the same children in the same order, so state_dict names
// and parameter order are torch's.
#include <hetero/error.hpp>
#include <hetero/nn/transformer.hpp>
#include <hetero/ops.hpp>

#include "transformer_blocks.hpp"

namespace hetero::nn {

TransformerDecoderLayer::TransformerDecoderLayer(std::int64_t d_model, std::int64_t nhead,
                                                 TransformerDecoderLayerOptions options,
                                                 TensorOptions tensor_options)
    : d_model_(d_model), nhead_(nhead), options_(std::move(options)) {
  detail::check_activation(options_.activation, "TransformerDecoderLayer");
  const detail::TransformerParts parts(d_model, nhead, options_, tensor_options);
  self_attn_ = parts.attention();
  multihead_attn_ = parts.attention();
  linear1_ = parts.linear1();
  dropout_ = parts.dropout();
  linear2_ = parts.linear2();
  norm1_ = parts.norm();
  norm2_ = parts.norm();
  norm3_ = parts.norm();
  dropout1_ = parts.dropout();
  dropout2_ = parts.dropout();
  dropout3_ = parts.dropout();
  register_module("self_attn", self_attn_);
  register_module("multihead_attn", multihead_attn_);
  register_module("linear1", linear1_);
  register_module("dropout", dropout_);
  register_module("linear2", linear2_);
  register_module("norm1", norm1_);
  register_module("norm2", norm2_);
  register_module("norm3", norm3_);
  register_module("dropout1", dropout1_);
  register_module("dropout2", dropout2_);
  register_module("dropout3", dropout3_);
}

Tensor TransformerDecoderLayer::forward(const Tensor& tgt, const Tensor& memory,
                                        const Tensor& tgt_mask, const Tensor& memory_mask,
                                        const Tensor& tgt_key_padding_mask,
                                        const Tensor& memory_key_padding_mask, bool tgt_is_causal,
                                        bool memory_is_causal) {
  const auto sa = [&](const Tensor& x) {
    return dropout1_->forward(
        self_attn_->forward(x, x, x, tgt_key_padding_mask, false, tgt_mask, true, tgt_is_causal)
            .output);
  };
  const auto mha = [&](const Tensor& x) {
    return dropout2_->forward(multihead_attn_
                                  ->forward(x, memory, memory, memory_key_padding_mask, false,
                                            memory_mask, true, memory_is_causal)
                                  .output);
  };
  const auto ff = [&](const Tensor& x) {
    return dropout3_->forward(
        detail::feed_forward(x, *linear1_, *dropout_, *linear2_, options_.activation));
  };
  Tensor x = tgt;
  if (options_.norm_first) {
    x = x + sa(norm1_->forward(x));
    x = x + mha(norm2_->forward(x));
    return x + ff(norm3_->forward(x));
  }
  x = norm1_->forward(x + sa(x));
  x = norm2_->forward(x + mha(x));
  return norm3_->forward(x + ff(x));
}

std::shared_ptr<TransformerDecoderLayer> TransformerDecoderLayer::clone() const {
  return detail::clone_layer(*this, d_model_, nhead_, options_);
}

Tensor TransformerDecoderLayer::forward(const Tensor&) {
  throw ValueError(
      "TransformerDecoderLayer::forward(tgt): a decoder layer attends to the encoder's output; "
      "call forward(tgt, memory, ...) (torch: missing argument 'memory')");
}

}  // namespace hetero::nn
