// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/sgd.hpp>

#include <fmt/format.h>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"
#include "check_gradients.hpp"
#include "state_entries.hpp"

namespace hetero::optim {

namespace {

// torch.optim.SGD's checks and messages.
void check(const SGDOptions& o) {
  const auto bad = [](const std::string& what, double v) {
    return ValueError("SGD: Invalid " + what + ": " + fmt::format("{}", v) + " (as torch)");
  };
  if (!(o.lr >= 0)) throw bad("learning rate", o.lr);
  if (!(o.momentum >= 0)) throw bad("momentum value", o.momentum);
  if (!(o.weight_decay >= 0)) throw bad("weight_decay value", o.weight_decay);
  if (o.nesterov && (o.momentum <= 0 || o.dampening != 0))
    throw ValueError("SGD: Nesterov momentum requires a momentum and zero dampening (as torch)");
}

}  // namespace

SGD::SGD(std::vector<Tensor> params, SGDOptions options)
    : SGD(std::vector<ParamGroup<SGDOptions>>{{std::move(params), std::nullopt}}, options) {}

SGD::SGD(std::vector<ParamGroup<SGDOptions>> groups, SGDOptions defaults)
    : Optimizer(detail::params_of(groups), "SGD"),
      momentum_(params_.size()),
      options_(detail::options_of(groups, defaults, check)) {}

const SGDOptions& SGD::options(std::size_t group) const {
  param_group(group);  // IndexError out of range
  return options_[group];
}

std::vector<std::pair<std::string, double>> SGD::options_of(std::size_t group) const {
  const SGDOptions& o = options_[group];
  return {{"lr", o.lr},
          {"momentum", o.momentum},
          {"dampening", o.dampening},
          {"weight_decay", o.weight_decay}};
}

bool SGD::set_option(std::size_t group, const std::string& key, double value, bool checked) {
  double SGDOptions::*field = key == "lr"             ? &SGDOptions::lr
                              : key == "momentum"     ? &SGDOptions::momentum
                              : key == "dampening"    ? &SGDOptions::dampening
                              : key == "weight_decay" ? &SGDOptions::weight_decay
                                                      : nullptr;
  if (!field) return false;
  if (checked)
    detail::set_checked(options_[group], field, value, check);
  else
    options_[group].*field = value;
  return true;
}

void SGD::step() {
  NoGradGuard no_grad;
  detail::check_gradients(params_, "SGD");
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    const Tensor g = p.grad();
    if (!g.defined()) continue;
    const SGDOptions& o = options_[group_of(i)];
    // torch.optim.SGD's update, term for term; the momentum buffer and the parameter are
    // updated in place (detail::binary_into, as torch's mul_/add_): 6 passes over the
    // parameter's size instead of 8, and no new buffer per step.
    Tensor d = g;
    if (o.weight_decay != 0) {
      d = o.weight_decay * p;
      hetero::detail::binary_into(BinaryOp::add, g, d, d);  // g + wd p
    }
    if (o.momentum != 0) {
      Tensor& buf = momentum_[i];
      if (buf.defined()) {
        hetero::detail::binary_into(BinaryOp::mul, buf,
                                    hetero::detail::scalar_operand(buf, o.momentum), buf);
        hetero::detail::binary_into(BinaryOp::add, buf,
                                    o.dampening != 0 ? (1 - o.dampening) * d : d, buf);
      } else {
        buf = d.clone();
      }
      d = o.nesterov ? d + o.momentum * buf : buf;
    }
    hetero::detail::binary_into(BinaryOp::sub, p, o.lr * d, p);
  }
}

nn::NamedTensors SGD::param_state() const {
  nn::NamedTensors out;
  for (std::size_t i = 0; i < momentum_.size(); ++i)
    if (momentum_[i].defined())
      out.push_back("state." + std::to_string(i) + ".momentum_buffer", momentum_[i]);
  return out;
}

void SGD::load_param_state(const nn::NamedTensors& state) {
  const auto entries = detail::split_state(state, params_, {"momentum_buffer"}, "SGD");
  std::vector<Tensor> momentum(params_.size());
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (auto it = entries[i].find("momentum_buffer"); it != entries[i].end())
      momentum[i] = detail::adopt(it->second, params_[i]);
  momentum_ = std::move(momentum);
}

}  // namespace hetero::optim
