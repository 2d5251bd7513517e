// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/adadelta.hpp>

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

const detail::OptionTable<AdadeltaOptions> kOptions{
    {"lr", &AdadeltaOptions::lr},
    {"rho", &AdadeltaOptions::rho},
    {"eps", &AdadeltaOptions::eps},
    {"weight_decay", &AdadeltaOptions::weight_decay}};

void check(const AdadeltaOptions& o) {
  const auto bad = [](const std::string& what, double v) {
    return ValueError("Adadelta: Invalid " + what + ": " + fmt::format("{}", v) + " (as torch)");
  };
  if (!(o.lr >= 0)) throw bad("learning rate", o.lr);
  if (!(o.rho >= 0 && o.rho <= 1)) throw bad("rho value", o.rho);
  if (!(o.eps >= 0)) throw bad("epsilon value", o.eps);
  if (!(o.weight_decay >= 0)) throw bad("weight_decay value", o.weight_decay);
}

}  // namespace

Adadelta::Adadelta(std::vector<Tensor> params, AdadeltaOptions options)
    : Adadelta(std::vector<ParamGroup<AdadeltaOptions>>{{std::move(params), std::nullopt}},
               options) {}

Adadelta::Adadelta(std::vector<ParamGroup<AdadeltaOptions>> groups, AdadeltaOptions defaults)
    : Optimizer(detail::params_of(groups), "Adadelta"),
      steps_(params_.size(), 0),
      slots_(params_.size()),
      options_(detail::options_of(groups, defaults, check)) {}

const AdadeltaOptions& Adadelta::options(std::size_t group) const {
  param_group(group);  // IndexError out of range
  return options_[group];
}

std::vector<std::pair<std::string, double>> Adadelta::options_of(std::size_t group) const {
  return detail::read_options(options_[group], kOptions);
}

bool Adadelta::set_option(std::size_t group, const std::string& key, double value, bool checked) {
  return detail::write_option(options_[group], kOptions, key, value, checked, check);
}

void Adadelta::step() {
  NoGradGuard no_grad;
  detail::check_gradients(params_, "Adadelta");
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    Tensor g = p.grad();
    if (!g.defined()) continue;
    const AdadeltaOptions& o = options_[group_of(i)];
    auto& slots = slots_[i];
    if (slots.empty()) {
      slots["square_avg"] = zeros_like(p);
      slots["acc_delta"] = zeros_like(p);
    }
    ++steps_[i];
    if (o.weight_decay != 0) g = g + o.weight_decay * p;
    Tensor& square_avg = slots["square_avg"];
    Tensor& acc_delta = slots["acc_delta"];
    square_avg = square_avg * o.rho + g * g * (1 - o.rho);
    const Tensor delta = sqrt(acc_delta + o.eps) / sqrt(square_avg + o.eps) * g;
    acc_delta = acc_delta * o.rho + delta * delta * (1 - o.rho);
    p.copy_(p - o.lr * delta);
  }
}

nn::NamedTensors Adadelta::param_state() const {
  return detail::write_slots(steps_, slots_, params_, DType::int64);
}

void Adadelta::load_param_state(const nn::NamedTensors& state) {
  detail::read_slots(state, params_, {"square_avg", "acc_delta"},
                     [](std::size_t) {
                       return std::set<std::string>{"square_avg", "acc_delta"};
                     },
                     /*zero_step=*/false, "Adadelta", {steps_, slots_});
}

}  // namespace hetero::optim
