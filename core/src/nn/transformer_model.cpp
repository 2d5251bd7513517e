// SPDX-License-Identifier: Apache-2.0
// nn::Transformer (<hetero/nn/transformer_model.hpp>), as torch 1.13's
// torch/nn/modules/transformer.py: the same children, checks and initialisation.
#include <hetero/nn/transformer_model.hpp>

#include <limits>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/manipulation.hpp>
#include <hetero/nn/init.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"

namespace hetero::nn {

namespace {

std::shared_ptr<LayerNorm> final_norm(const TransformerOptions& o, const TensorOptions& t) {
  return std::make_shared<LayerNorm>(Shape{o.d_model}, o.layer.layer_norm_eps, true, t);
}

}  // namespace

Transformer::Transformer(TransformerOptions options, TensorOptions tensor_options)
    : d_model_(options.d_model), batch_first_(options.layer.batch_first) {
  encoder_ = options.custom_encoder;
  if (!encoder_)
    encoder_ = std::make_shared<TransformerEncoder>(
        TransformerEncoderLayer(options.d_model, options.nhead, options.layer, tensor_options),
        options.num_encoder_layers, final_norm(options, tensor_options));
  decoder_ = options.custom_decoder;
  if (!decoder_)
    decoder_ = std::make_shared<TransformerDecoder>(
        TransformerDecoderLayer(options.d_model, options.nhead, options.layer, tensor_options),
        options.num_decoder_layers, final_norm(options, tensor_options));
  register_module("encoder", encoder_);
  register_module("decoder", decoder_);
  for (Tensor p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor Transformer::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                            const Tensor& tgt_mask, const Tensor& memory_mask,
                            const Tensor& src_key_padding_mask, const Tensor& tgt_key_padding_mask,
                            const Tensor& memory_key_padding_mask, bool src_is_causal,
                            bool tgt_is_causal, bool memory_is_causal) {
  const std::int64_t batch_dim = batch_first_ ? 0 : 1;
  if (src.dim() == 3 && (tgt.dim() <= batch_dim || src.size(batch_dim) != tgt.size(batch_dim)))
    throw ShapeError("Transformer: the batch number of src and tgt must be equal: src " +
                     detail::shape_str(src.shape()) + ", tgt " + detail::shape_str(tgt.shape()) +
                     (batch_first_ ? " (batch_first: dimension 0)" : " (dimension 1)"));
  if (src.dim() == 0 || tgt.dim() == 0 || src.size(-1) != d_model_ || tgt.size(-1) != d_model_)
    throw ShapeError("Transformer: the feature number of src and tgt must be equal to d_model " +
                     std::to_string(d_model_) + ": src " + detail::shape_str(src.shape()) +
                     ", tgt " + detail::shape_str(tgt.shape()));
  const Tensor memory = encoder_->forward(src, src_mask, src_key_padding_mask, src_is_causal);
  return decoder_->forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                           memory_key_padding_mask, tgt_is_causal, memory_is_causal);
}

Tensor Transformer::forward(const Tensor&) {
  throw ValueError(
      "Transformer::forward(src): the model needs the source and the target; call "
      "forward(src, tgt, ...) (torch: missing argument 'tgt')");
}

Tensor Transformer::generate_square_subsequent_mask(std::int64_t size, TensorOptions options) {
  if (size < 0)
    throw ValueError(
        "Transformer::generate_square_subsequent_mask: size must be non-negative, "
        "got " +
        std::to_string(size));
  const DType dtype = options.dtype_or(DType::float32);
  if (!is_floating_point(dtype))
    throw DTypeError("Transformer::generate_square_subsequent_mask: the mask holds -inf, which " +
                     std::string(dtype_name(dtype)) + " cannot (use a floating dtype)");
  return triu(full({size, size}, -std::numeric_limits<double>::infinity(), options.dtype(dtype)),
              1);
}

}  // namespace hetero::nn
