// SPDX-License-Identifier: Apache-2.0
#include "transformer_blocks.hpp"

#include <hetero/activations.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

namespace hetero::detail {

void check_activation(const std::string& activation, const char* who) {
  if (activation != "relu" && activation != "gelu")
    throw ValueError(std::string(who) + ": activation should be relu/gelu, not " + activation +
                     " (as torch)");
}

std::shared_ptr<nn::MultiheadAttention> TransformerParts::attention() const {
  return std::make_shared<nn::MultiheadAttention>(d_model_, nhead_, o_.dropout, true,
                                                  o_.batch_first, t_);
}

std::shared_ptr<nn::Linear> TransformerParts::linear1() const {
  return std::make_shared<nn::Linear>(d_model_, o_.dim_feedforward, true, t_);
}

std::shared_ptr<nn::Linear> TransformerParts::linear2() const {
  return std::make_shared<nn::Linear>(o_.dim_feedforward, d_model_, true, t_);
}

std::shared_ptr<nn::LayerNorm> TransformerParts::norm() const {
  return std::make_shared<nn::LayerNorm>(Shape{d_model_}, o_.layer_norm_eps, true, t_);
}

std::shared_ptr<nn::Dropout> TransformerParts::dropout() const {
  return std::make_shared<nn::Dropout>(o_.dropout);
}

Tensor feed_forward(const Tensor& x, nn::Linear& linear1, nn::Dropout& dropout, nn::Linear& linear2,
                    const std::string& activation) {
  const Tensor h = linear1.forward(x);
  return linear2.forward(dropout.forward(activation == "gelu" ? gelu(h) : relu(h)));
}

}  // namespace hetero::detail
