// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/sgd.hpp>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "state_entries.hpp"

namespace hetero::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options)
    : Optimizer(std::move(params), "SGD"), momentum_(params_.size()), options_(options) {
  if (!(options.lr > 0)) throw Error("SGD: lr must be positive, got " + std::to_string(options.lr));
  if (options.momentum < 0)
    throw Error("SGD: momentum must be >= 0, got " + std::to_string(options.momentum));
  if (options.weight_decay < 0)
    throw Error("SGD: weight_decay must be >= 0, got " + std::to_string(options.weight_decay));
  if (options.nesterov && (options.momentum <= 0 || options.dampening != 0))
    throw Error("SGD: Nesterov momentum needs momentum > 0 and dampening = 0");
}

void SGD::step() {
  NoGradGuard no_grad;
  const auto& o = options_;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    const Tensor g = p.grad();
    if (!g.defined()) continue;
    Tensor d = o.weight_decay != 0 ? g + o.weight_decay * p : g;
    if (o.momentum != 0) {
      Tensor& buf = momentum_[i];
      buf = buf.defined() ? buf * o.momentum + (1 - o.dampening) * d : d.clone();
      d = o.nesterov ? d + o.momentum * buf : buf;
    }
    p.copy_(p - o.lr * d);
  }
}

nn::NamedTensors SGD::state_dict() const {
  nn::NamedTensors out;
  for (std::size_t i = 0; i < momentum_.size(); ++i)
    if (momentum_[i].defined())
      out.push_back("state." + std::to_string(i) + ".momentum_buffer", momentum_[i]);
  return out;
}

void SGD::load_state_dict(const nn::NamedTensors& state) {
  const auto entries = detail::split_state(state, params_, {"momentum_buffer"}, "SGD");
  std::vector<Tensor> momentum(params_.size());
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (auto it = entries[i].find("momentum_buffer"); it != entries[i].end())
      momentum[i] = detail::adopt(it->second, params_[i]);
  momentum_ = std::move(momentum);
}

}  // namespace hetero::optim
