// SPDX-License-Identifier: Apache-2.0
#include "transformer_blocks.hpp"

#include <string>

#include <hetero/activations.hpp>
#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"

namespace hetero::detail {

using nn::NamedTensors;

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

TensorOptions tensor_options_of(const nn::Module& m) {
  const NamedTensors params = m.named_parameters();
  if (params.size() == 0) return TensorOptions();
  const Tensor& p = params.begin()->second;
  return TensorOptions(p.device()).dtype(p.dtype());
}

namespace {

void copy_tensors(const NamedTensors& from, const NamedTensors& to, bool parameters) {
  if (from.size() != to.size())
    throw InternalError("copy_state: " + std::to_string(from.size()) + " tensors copied into " +
                        std::to_string(to.size()));
  auto dst = to.begin();
  for (const auto& [name, src] : from) {
    const auto& [dst_name, d] = *dst++;
    if (name != dst_name || src.shape() != d.shape() || src.dtype() != d.dtype() ||
        src.device() != d.device())
      throw InternalError("copy_state: " + name + " " + shape_str(src.shape()) + " " +
                          std::string(dtype_name(src.dtype())) + " on " + src.device().str() +
                          " copied into " + dst_name + " " + shape_str(d.shape()) + " " +
                          std::string(dtype_name(d.dtype())) + " on " + d.device().str());
    Tensor target = d;
    target.copy_(src);
    if (parameters) target.requires_grad_(src.requires_grad());
  }
}

void copy_training(const nn::Module& from, nn::Module& to) {
  to.train(from.is_training());
  const auto& a = from.children();
  const auto& b = to.children();
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    copy_training(*a[i].second, *b[i].second);
}

}  // namespace

void copy_state(const nn::Module& from, nn::Module& to) {
  {
    NoGradGuard no_grad;
    copy_tensors(from.named_parameters(), to.named_parameters(), true);
    copy_tensors(from.named_buffers(), to.named_buffers(), false);
  }
  copy_training(from, to);
}

Tensor feed_forward(const Tensor& x, nn::Linear& linear1, nn::Dropout& dropout, nn::Linear& linear2,
                    const std::string& activation) {
  const Tensor h = linear1.forward(x);
  return linear2.forward(dropout.forward(activation == "gelu" ? gelu(h) : relu(h)));
}

}  // namespace hetero::detail
