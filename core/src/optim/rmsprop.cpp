// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/rmsprop.hpp>

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

const detail::OptionTable<RMSpropOptions> kOptions{{"lr", &RMSpropOptions::lr},
                                                   {"momentum", &RMSpropOptions::momentum},
                                                   {"alpha", &RMSpropOptions::alpha},
                                                   {"eps", &RMSpropOptions::eps},
                                                   {"weight_decay", &RMSpropOptions::weight_decay}};

void check(const RMSpropOptions& o) {
  const auto bad = [](const std::string& what, double v) {
    return ValueError("RMSprop: Invalid " + what + ": " + fmt::format("{}", v) + " (as torch)");
  };
  if (!(o.lr >= 0)) throw bad("learning rate", o.lr);
  if (!(o.eps >= 0)) throw bad("epsilon value", o.eps);
  if (!(o.momentum >= 0)) throw bad("momentum value", o.momentum);
  if (!(o.weight_decay >= 0)) throw bad("weight_decay value", o.weight_decay);
  if (!(o.alpha >= 0)) throw bad("alpha value", o.alpha);
}

}  // namespace

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions options)
    : RMSprop(std::vector<ParamGroup<RMSpropOptions>>{{std::move(params), std::nullopt}}, options) {
}

RMSprop::RMSprop(std::vector<ParamGroup<RMSpropOptions>> groups, RMSpropOptions defaults)
    : Optimizer(detail::params_of(groups), "RMSprop"),
      steps_(params_.size(), 0),
      slots_(params_.size()),
      options_(detail::options_of(groups, defaults, check)) {}

const RMSpropOptions& RMSprop::options(std::size_t group) const {
  param_group(group);  // IndexError out of range
  return options_[group];
}

std::vector<std::pair<std::string, double>> RMSprop::options_of(std::size_t group) const {
  return detail::read_options(options_[group], kOptions);
}

bool RMSprop::set_option(std::size_t group, const std::string& key, double value, bool checked) {
  return detail::write_option(options_[group], kOptions, key, value, checked, check);
}

void RMSprop::step() {
  NoGradGuard no_grad;
  detail::check_gradients(params_, "RMSprop");
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    Tensor g = p.grad();
    if (!g.defined()) continue;
    const RMSpropOptions& o = options_[group_of(i)];
    auto& slots = slots_[i];
    // Created at the first step (torch's lazy state); a momentum set above 0 later (a
    // schedule) starts its buffer at zeros, where torch would fail.
    const auto slot = [&](const char* name) -> Tensor& {
      Tensor& t = slots[name];
      if (!t.defined()) t = zeros_like(p);
      return t;
    };
    ++steps_[i];
    if (o.weight_decay != 0) g = g + o.weight_decay * p;
    Tensor& square_avg = slot("square_avg");
    square_avg = square_avg * o.alpha + g * g * (1 - o.alpha);
    Tensor avg;
    if (o.centered) {
      Tensor& grad_avg = slot("grad_avg");
      grad_avg = grad_avg * o.alpha + g * (1 - o.alpha);
      avg = sqrt(square_avg - grad_avg * grad_avg) + o.eps;
    } else {
      avg = sqrt(square_avg) + o.eps;
    }
    if (o.momentum > 0) {
      Tensor& buf = slot("momentum_buffer");
      buf = buf * o.momentum + g / avg;
      p.copy_(p - o.lr * buf);
    } else {
      p.copy_(p - o.lr * (g / avg));
    }
  }
}

nn::NamedTensors RMSprop::param_state() const {
  return detail::write_slots(steps_, slots_, params_, DType::int64);
}

void RMSprop::load_param_state(const nn::NamedTensors& state) {
  detail::read_slots(state, params_, {"square_avg", "grad_avg", "momentum_buffer"},
                     [this](std::size_t i) {
                       const RMSpropOptions& o = options_[group_of(i)];
                       std::set<std::string> needed{"square_avg"};
                       if (o.centered) needed.insert("grad_avg");
                       if (o.momentum > 0) needed.insert("momentum_buffer");
                       return needed;
                     },
                     /*zero_step=*/false, "RMSprop", {steps_, slots_});
}

}  // namespace hetero::optim
