// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/transformer.hpp>

#include <hetero/activations.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

namespace hetero::nn {

TransformerEncoderLayer::TransformerEncoderLayer(std::int64_t d_model, std::int64_t nhead,
                                                 TransformerEncoderLayerOptions options,
                                                 TensorOptions tensor_options)
    : options_(std::move(options)) {
  if (options_.activation != "relu" && options_.activation != "gelu")
    throw ValueError("TransformerEncoderLayer: activation should be relu/gelu, not " +
                     options_.activation + " (as torch)");
  self_attn_ = std::make_shared<MultiheadAttention>(d_model, nhead, options_.dropout, true,
                                                    options_.batch_first, tensor_options);
  linear1_ = std::make_shared<Linear>(d_model, options_.dim_feedforward, true, tensor_options);
  dropout_ = std::make_shared<Dropout>(options_.dropout);
  linear2_ = std::make_shared<Linear>(options_.dim_feedforward, d_model, true, tensor_options);
  norm1_ =
      std::make_shared<LayerNorm>(Shape{d_model}, options_.layer_norm_eps, true, tensor_options);
  norm2_ =
      std::make_shared<LayerNorm>(Shape{d_model}, options_.layer_norm_eps, true, tensor_options);
  dropout1_ = std::make_shared<Dropout>(options_.dropout);
  dropout2_ = std::make_shared<Dropout>(options_.dropout);
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
  const Tensor h = linear1_->forward(x);
  const Tensor a = options_.activation == "gelu" ? gelu(h) : relu(h);
  return dropout2_->forward(linear2_->forward(dropout_->forward(a)));
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

}  // namespace hetero::nn
