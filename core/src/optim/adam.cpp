// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/adam.hpp>

#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "check_gradients.hpp"
#include "state_entries.hpp"

namespace hetero::optim {

namespace {

void check(const AdamOptions& o, const char* who) {
  const auto bad = [who](const std::string& what, double v) {
    return ValueError(std::string(who) + ": Invalid " + what + ": " + fmt::format("{}", v) +
                      " (as torch)");
  };
  if (!(o.lr >= 0)) throw bad("learning rate", o.lr);
  if (!(o.eps >= 0)) throw bad("epsilon value", o.eps);
  if (!(o.beta1 >= 0 && o.beta1 < 1)) throw bad("beta parameter at index 0", o.beta1);
  if (!(o.beta2 >= 0 && o.beta2 < 1)) throw bad("beta parameter at index 1", o.beta2);
  if (!(o.weight_decay >= 0)) throw bad("weight_decay value", o.weight_decay);
}

AdamOptions adam_options(const AdamWOptions& o) {
  return {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, o.amsgrad};
}

std::vector<ParamGroup<AdamOptions>> adam_groups(std::vector<ParamGroup<AdamWOptions>> groups) {
  std::vector<ParamGroup<AdamOptions>> out;
  for (auto& g : groups)
    out.push_back(
        {std::move(g.params), g.options ? std::optional(adam_options(*g.options)) : std::nullopt});
  return out;
}

}  // namespace

Adam::Adam(std::vector<Tensor> params, AdamOptions options)
    : Adam(std::vector<ParamGroup<AdamOptions>>{{std::move(params), std::nullopt}}, options) {}

Adam::Adam(std::vector<ParamGroup<AdamOptions>> groups, AdamOptions defaults)
    : Adam(std::move(groups), defaults, false, "Adam") {}

Adam::Adam(std::vector<ParamGroup<AdamOptions>> groups, AdamOptions defaults, bool decoupled,
           const char* who)
    : Optimizer(detail::params_of(groups), who),
      state_(params_.size()),
      options_(
          detail::options_of(groups, defaults, [who](const AdamOptions& o) { check(o, who); })),
      decoupled_(decoupled) {}

const AdamOptions& Adam::options(std::size_t group) const {
  param_group(group);  // IndexError out of range
  return options_[group];
}

std::vector<std::pair<std::string, double>> Adam::options_of(std::size_t group) const {
  const AdamOptions& o = options_[group];
  return {{"lr", o.lr},
          {"beta1", o.beta1},
          {"beta2", o.beta2},
          {"eps", o.eps},
          {"weight_decay", o.weight_decay}};
}

bool Adam::set_option(std::size_t group, const std::string& key, double value, bool checked) {
  double AdamOptions::*field = key == "lr"             ? &AdamOptions::lr
                               : key == "beta1"        ? &AdamOptions::beta1
                               : key == "beta2"        ? &AdamOptions::beta2
                               : key == "eps"          ? &AdamOptions::eps
                               : key == "weight_decay" ? &AdamOptions::weight_decay
                                                       : nullptr;
  if (!field) return false;
  const char* who = decoupled_ ? "AdamW" : "Adam";
  if (checked)
    detail::set_checked(options_[group], field, value,
                        [who](const AdamOptions& o) { check(o, who); });
  else
    options_[group].*field = value;
  return true;
}

void Adam::step() {
  NoGradGuard no_grad;
  detail::check_gradients(params_, decoupled_ ? "AdamW" : "Adam");
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    Tensor g = p.grad();
    if (!g.defined()) continue;
    const AdamOptions& o = options_[group_of(i)];
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

nn::NamedTensors Adam::param_state() const {
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

void Adam::load_param_state(const nn::NamedTensors& state) {
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
    const bool amsgrad = options_[group_of(i)].amsgrad;
    if (amsgrad != (e.count("max_exp_avg_sq") != 0))
      throw ValueError(std::string(who) + ".load_state_dict: parameter " + std::to_string(i) +
                       (amsgrad ? " lacks 'max_exp_avg_sq' (amsgrad is on)"
                                : " has 'max_exp_avg_sq' but amsgrad is off"));
    State& s = loaded[i];
    const double step = e.at("step").to(DType::float64).reshape({}).item<double>();
    if (!(step >= 1 && step == std::floor(step) && step < 9.0e15))
      throw ValueError(std::string(who) + ".load_state_dict: 'state." + std::to_string(i) +
                       ".step' is " + std::to_string(step) + ", not a positive whole number");
    s.step = static_cast<std::int64_t>(step);
    s.exp_avg = detail::adopt(e.at("exp_avg"), params_[i]);
    s.exp_avg_sq = detail::adopt(e.at("exp_avg_sq"), params_[i]);
    if (amsgrad) s.max_exp_avg_sq = detail::adopt(e.at("max_exp_avg_sq"), params_[i]);
  }
  state_ = std::move(loaded);
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions options)
    : AdamW(std::vector<ParamGroup<AdamWOptions>>{{std::move(params), std::nullopt}}, options) {}

AdamW::AdamW(std::vector<ParamGroup<AdamWOptions>> groups, AdamWOptions defaults)
    : Adam(adam_groups(std::move(groups)), adam_options(defaults), true, "AdamW") {}

}  // namespace hetero::optim
