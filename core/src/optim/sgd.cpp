// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/sgd.hpp>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

namespace hetero::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options)
    : params_(std::move(params)), momentum_(params_.size()), options_(options) {
  if (!(options.lr > 0)) throw Error("SGD: lr must be positive, got " + std::to_string(options.lr));
  if (options.momentum < 0)
    throw Error("SGD: momentum must be >= 0, got " + std::to_string(options.momentum));
  if (options.weight_decay < 0)
    throw Error("SGD: weight_decay must be >= 0, got " + std::to_string(options.weight_decay));
  if (options.nesterov && (options.momentum <= 0 || options.dampening != 0))
    throw Error("SGD: Nesterov momentum needs momentum > 0 and dampening = 0");
  for (const auto& p : params_)
    if (!p.defined() || !p.requires_grad())
      throw Error("SGD: every parameter must be a tensor that requires grad");
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

void SGD::zero_grad() {
  for (auto& p : params_) p.mutable_grad() = Tensor();
}

}  // namespace hetero::optim
