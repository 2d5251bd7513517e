// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the Transformer layers (nn/transformer.cpp, nn/transformer_decoder.cpp) build alike:
// their children, made with the layer's options, and the feed-forward block.
#include <cstdint>
#include <memory>
#include <string>

#include <hetero/nn/transformer.hpp>

namespace hetero::detail {

/// ValueError naming `who` unless `activation` is "relu" or "gelu" (torch's message).
void check_activation(const std::string& activation, const char* who);

/// Makes a layer's children of one kind, each new, with the layer's sizes and options:
/// attention() a MultiheadAttention(d_model, nhead, dropout, bias, batch_first), linear1()
/// d_model -> dim_feedforward, linear2() back, norm() a LayerNorm over d_model, dropout()
/// a Dropout. Keeps references to its arguments: use it within the layer's constructor.
class TransformerParts {
 public:
  TransformerParts(std::int64_t d_model, std::int64_t nhead,
                   const nn::TransformerEncoderLayerOptions& options,
                   const TensorOptions& tensor_options)
      : d_model_(d_model), nhead_(nhead), o_(options), t_(tensor_options) {}
  std::shared_ptr<nn::MultiheadAttention> attention() const;
  std::shared_ptr<nn::Linear> linear1() const;
  std::shared_ptr<nn::Linear> linear2() const;
  std::shared_ptr<nn::LayerNorm> norm() const;
  std::shared_ptr<nn::Dropout> dropout() const;

 private:
  std::int64_t d_model_, nhead_;
  const nn::TransformerEncoderLayerOptions& o_;
  const TensorOptions& t_;
};

/// The device and dtype of `m`'s first parameter (cpu float32 when it has none): what a copy
/// of a layer is built with.
TensorOptions tensor_options_of(const nn::Module& m);

/// Copies `from`'s parameters (values and requires_grad) and buffers into `to`'s, matched
/// by name, and its training mode, not recorded by autograd: a deep copy's second half.
/// InternalError where the names, shapes, dtypes or devices differ (`to` was built from
/// other options).
void copy_state(const nn::Module& from, nn::Module& to);

/// A deep copy of `layer` (an encoder or decoder layer): a new Layer built with the same
/// sizes, options, device and dtype, then copy_state. The layers' clone().
template <class Layer, class Options>
std::shared_ptr<Layer> clone_layer(const Layer& layer, std::int64_t d_model, std::int64_t nhead,
                                   const Options& options) {
  auto copy = std::make_shared<Layer>(d_model, nhead, options, tensor_options_of(layer));
  copy_state(layer, *copy);
  return copy;
}

/// linear2(dropout(activation(linear1(x)))), activation "relu" or "gelu".
Tensor feed_forward(const Tensor& x, nn::Linear& linear1, nn::Dropout& dropout, nn::Linear& linear2,
                    const std::string& activation);

}  // namespace hetero::detail
