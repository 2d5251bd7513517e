// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/transformer.hpp>

#include <hetero/activations.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "transformer_blocks.hpp"

namespace hetero::nn {

TransformerEncoderLayer::TransformerEncoderLayer(std::int64_t d_model, std::int64_t nhead,
                                                 TransformerEncoderLayerOptions options,
                                                 TensorOptions tensor_options)
    : d_model_(d_model), nhead_(nhead), options_(std::move(options)) {
  detail::check_activation(options_.activation, "TransformerEncoderLayer");
  const detail::TransformerParts parts(d_model, nhead, options_, tensor_options);
  self_attn_ = parts.attention();
  linear1_ = parts.linear1();
  dropout_ = parts.dropout();
  linear2_ = parts.linear2();
  norm1_ = parts.norm();
  norm2_ = parts.norm();
  dropout1_ = parts.dropout();
  dropout2_ = parts.dropout();
  register_module("self_attn", self_attn_);
  register_module("linear1", linear1_);
  register_module("dropout", dropout_);
  register_module("linear2", linear2_);
  register_module("norm1", norm1_);
  register_module("norm2", norm2_);
  register_module("dropout1", dropout1_);
  register_module("dropout2", dropout2_);
}

Tensor TransformerEncoderLayer::sa_block(const Tensor& x, const Tensor& mask, const Tensor& padding,
                                         bool is_causal) {
  return dropout1_->forward(
      self_attn_->forward(x, x, x, padding, false, mask, true, is_causal).output);
}

Tensor TransformerEncoderLayer::ff_block(const Tensor& x) {
  return dropout2_->forward(
      detail::feed_forward(x, *linear1_, *dropout_, *linear2_, options_.activation));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask,
                                        const Tensor& src_key_padding_mask, bool is_causal) {
  Tensor x = src;
  if (options_.norm_first) {
    x = x + sa_block(norm1_->forward(x), src_mask, src_key_padding_mask, is_causal);
    return x + ff_block(norm2_->forward(x));
  }
  x = norm1_->forward(x + sa_block(x, src_mask, src_key_padding_mask, is_causal));
  return norm2_->forward(x + ff_block(x));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src) { return forward(src, {}, {}); }

std::shared_ptr<TransformerEncoderLayer> TransformerEncoderLayer::clone() const {
  return detail::clone_layer(*this, d_model_, nhead_, options_);
}

}  // namespace hetero::nn
