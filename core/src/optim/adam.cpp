// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/adam.hpp>

#include <cmath>
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "state_entries.hpp"

namespace hetero::optim {

Adam::Adam(std::vector<Tensor> params, AdamOptions options)
    : Adam(std::move(params), options, false, "Adam") {}

Adam::Adam(std::vector<Tensor> params, AdamOptions options, bool decoupled, const char* who)
    : Optimizer(std::move(params), who),
      state_(params_.size()),
      options_(options),
      decoupled_(decoupled) {
  const auto bad = [who](const std::string& what, double v) {
    return ValueError(std::string(who) + ": invalid " + what + ": " + std::to_string(v) +
                      " (as torch)");
  };
  if (!(options.lr > 0)) throw bad("learning rate (must be > 0)", options.lr);
  if (!(options.eps >= 0)) throw bad("epsilon value (must be >= 0)", options.eps);
  if (!(options.beta1 >= 0 && options.beta1 < 1))
    throw bad("beta parameter at index 0", options.beta1);
  if (!(options.beta2 >= 0 && options.beta2 < 1))
    throw bad("beta parameter at index 1", options.beta2);
  if (!(options.weight_decay >= 0))
    throw bad("weight_decay value (must be >= 0)", options.weight_decay);
}

void Adam::step() {
  NoGradGuard no_grad;
  const auto& o = options_;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    Tensor g = p.grad();
    if (!g.defined()) continue;
    State& s = state_[i];
    if (s.step == 0) {
      s.exp_avg = zeros_like(p);
      s.exp_avg_sq = zeros_like(p);
      if (o.amsgrad) s.max_exp_avg_sq = zeros_like(p);
    }
    const double t = static_cast<double>(++s.step);
    if (o.weight_decay != 0) {
      if (decoupled_)
        p.copy_(p * (1 - o.lr * o.weight_decay));
      else
        g = g + o.weight_decay * p;
    }
    s.exp_avg = s.exp_avg * o.beta1 + g * (1 - o.beta1);
    s.exp_avg_sq = s.exp_avg_sq * o.beta2 + g * g * (1 - o.beta2);
    const double bias_correction1 = 1 - std::pow(o.beta1, t);
    const double bias_correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, t));
    Tensor v = s.exp_avg_sq;
    if (o.amsgrad) v = s.max_exp_avg_sq = maximum(s.max_exp_avg_sq, s.exp_avg_sq);
    const Tensor denom = sqrt(v) / bias_correction2_sqrt + o.eps;
    p.copy_(p - (o.lr / bias_correction1) * (s.exp_avg / denom));
  }
}

nn::NamedTensors Adam::state_dict() const {
  nn::NamedTensors out;
  for (std::size_t i = 0; i < state_.size(); ++i) {
    const State& s = state_[i];
    if (s.step == 0) continue;
    const std::string prefix = "state." + std::to_string(i) + ".";
    out.push_back(prefix + "step", full({}, static_cast<double>(s.step),
                                        TensorOptions(params_[i].device()).dtype(DType::float32)));
    out.push_back(prefix + "exp_avg", s.exp_avg);
    out.push_back(prefix + "exp_avg_sq", s.exp_avg_sq);
    if (s.max_exp_avg_sq.defined()) out.push_back(prefix + "max_exp_avg_sq", s.max_exp_avg_sq);
  }
  return out;
}

void Adam::load_state_dict(const nn::NamedTensors& state) {
  const char* who = decoupled_ ? "AdamW" : "Adam";
  const auto entries =
      detail::split_state(state, params_, {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}, who);
  std::vector<State> loaded(params_.size());
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const auto& e = entries[i];
    if (e.empty()) continue;
    for (const char* name : {"step", "exp_avg", "exp_avg_sq"})
      if (!e.count(name))
        throw ValueError(std::string(who) + ".load_state_dict: parameter " + std::to_string(i) +
                         " has state but no 'state." + std::to_string(i) + "." + name + "'");
    if (options_.amsgrad != (e.count("max_exp_avg_sq") != 0))
      throw ValueError(std::string(who) + ".load_state_dict: parameter " + std::to_string(i) +
                       (options_.amsgrad ? " lacks 'max_exp_avg_sq' (amsgrad is on)"
                                         : " has 'max_exp_avg_sq' but amsgrad is off"));
    State& s = loaded[i];
    const double step = e.at("step").to(DType::float64).reshape({}).item<double>();
    if (!(step >= 1 && step == std::floor(step) && step < 9.0e15))
      throw ValueError(std::string(who) + ".load_state_dict: 'state." + std::to_string(i) +
                       ".step' is " + std::to_string(step) + ", not a positive whole number");
    s.step = static_cast<std::int64_t>(step);
    s.exp_avg = detail::adopt(e.at("exp_avg"), params_[i]);
    s.exp_avg_sq = detail::adopt(e.at("exp_avg_sq"), params_[i]);
    if (options_.amsgrad) s.max_exp_avg_sq = detail::adopt(e.at("max_exp_avg_sq"), params_[i]);
  }
  state_ = std::move(loaded);
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions o)
    : Adam(std::move(params), {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, o.amsgrad}, true,
           "AdamW") {}

}  // namespace hetero::optim
