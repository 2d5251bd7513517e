// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/adagrad.hpp>

#include <string>

#include <fmt/format.h>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "check_gradients.hpp"
#include "slot_state.hpp"

namespace hetero::optim {

namespace {

const detail::OptionTable<AdagradOptions> kOptions{
    {"lr", &AdagradOptions::lr},
    {"lr_decay", &AdagradOptions::lr_decay},
    {"eps", &AdagradOptions::eps},
    {"weight_decay", &AdagradOptions::weight_decay},
    {"initial_accumulator_value", &AdagradOptions::initial_accumulator_value}};

// A tensor like `p` filled with `value` (the "sum" torch's constructor makes).
Tensor filled(const Tensor& p, double value) {
  return full(p.shape(), value, TensorOptions(p.device()).dtype(p.dtype()));
}

void check(const AdagradOptions& o) {
  const auto bad = [](const std::string& what, double v) {
    return ValueError("Adagrad: Invalid " + what + ": " + fmt::format("{}", v) + " (as torch)");
  };
  if (!(o.lr >= 0)) throw bad("learning rate", o.lr);
  if (!(o.lr_decay >= 0)) throw bad("lr_decay value", o.lr_decay);
  if (!(o.weight_decay >= 0)) throw bad("weight_decay value", o.weight_decay);
  if (!(o.initial_accumulator_value >= 0))
    throw bad("initial_accumulator_value value", o.initial_accumulator_value);
  if (!(o.eps >= 0)) throw bad("epsilon value", o.eps);
}

}  // namespace

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions options)
    : Adagrad(std::vector<ParamGroup<AdagradOptions>>{{std::move(params), std::nullopt}}, options) {
}

Adagrad::Adagrad(std::vector<ParamGroup<AdagradOptions>> groups, AdagradOptions defaults)
    : Optimizer(detail::params_of(groups), "Adagrad"),
      steps_(params_.size(), 0),
      slots_(params_.size()),
      options_(detail::options_of(groups, defaults, check)),
      initial_sum_(defaults.initial_accumulator_value) {
  // torch fills every parameter's sum when the optimiser is built, from the constructor's
  // initial_accumulator_value (torch 1.13's __init__ reads its argument, not the group's).
  NoGradGuard no_grad;
  for (std::size_t i = 0; i < params_.size(); ++i)
    slots_[i]["sum"] = filled(params_[i], initial_sum_);
}

const AdagradOptions& Adagrad::options(std::size_t group) const {
  param_group(group);  // IndexError out of range
  return options_[group];
}

std::vector<std::pair<std::string, double>> Adagrad::options_of(std::size_t group) const {
  return detail::read_options(options_[group], kOptions);
}

bool Adagrad::set_option(std::size_t group, const std::string& key, double value, bool checked) {
  return detail::write_option(options_[group], kOptions, key, value, checked, check);
}

void Adagrad::step() {
  NoGradGuard no_grad;
  detail::check_gradients(params_, "Adagrad");
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    Tensor g = p.grad();
    if (!g.defined()) continue;
    const AdagradOptions& o = options_[group_of(i)];
    Tensor& sum = slots_[i]["sum"];
    if (!sum.defined()) sum = filled(p, initial_sum_);
    const double t = static_cast<double>(++steps_[i]);
    if (o.weight_decay != 0) g = g + o.weight_decay * p;
    const double clr = o.lr / (1 + (t - 1) * o.lr_decay);
    sum = sum + g * g;
    p.copy_(p - clr * (g / (sqrt(sum) + o.eps)));
  }
}

nn::NamedTensors Adagrad::param_state() const {
  return detail::write_slots(steps_, slots_, params_, DType::float32);
}

void Adagrad::load_param_state(const nn::NamedTensors& state) {
  detail::read_slots(state, params_, {"sum"},
                     [](std::size_t) { return std::set<std::string>{"sum"}; },
                     /*zero_step=*/true, "Adagrad", {steps_, slots_});
  // A parameter the checkpoint has no state for starts afresh, as at construction.
  NoGradGuard no_grad;
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (slots_[i].empty()) slots_[i]["sum"] = filled(params_[i], initial_sum_);
}

}  // namespace hetero::optim
