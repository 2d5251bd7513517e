// SPDX-License-Identifier: Apache-2.0
#include "slot_state.hpp"

#include <cmath>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>

namespace hetero::optim::detail {

nn::NamedTensors write_slots(const std::vector<std::int64_t>& steps,
                             const std::vector<std::map<std::string, Tensor>>& slots,
                             const std::vector<Tensor>& params, DType step_dtype) {
  nn::NamedTensors out;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].empty()) continue;
    const std::string prefix = "state." + std::to_string(i) + ".";
    out.push_back(prefix + "step", full({}, static_cast<double>(steps[i]),
                                        TensorOptions(params[i].device()).dtype(step_dtype)));
    for (const auto& [name, t] : slots[i]) out.push_back(prefix + name, t);
  }
  return out;
}

void read_slots(const nn::NamedTensors& state, const std::vector<Tensor>& params,
                const std::set<std::string>& names,
                const std::function<std::set<std::string>(std::size_t)>& required, bool zero_step,
                const char* who, SlotStates into) {
  std::set<std::string> all = names;
  all.insert("step");
  const auto entries = split_state(state, params, all, who);
  std::vector<std::int64_t> steps(params.size(), 0);
  std::vector<std::map<std::string, Tensor>> slots(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& e = entries[i];
    if (e.empty()) continue;
    const std::string at = std::string(who) + ".load_state_dict: parameter " + std::to_string(i);
    std::set<std::string> needed = required(i);
    needed.insert("step");
    for (const std::string& name : needed)
      if (!e.count(name))
        throw ValueError(at + " has state but no 'state." + std::to_string(i) + "." + name + "'");
    for (const auto& [name, t] : e)
      if (!needed.count(name))
        throw ValueError(at + " has '" + name + "', which its options do not keep");
    const double step = e.at("step").to(DType::float64).reshape({}).item<double>();
    if (!(step >= (zero_step ? 0 : 1) && step == std::floor(step) && step < 9.0e15))
      throw ValueError(std::string(who) + ".load_state_dict: 'state." + std::to_string(i) +
                       ".step' is " + std::to_string(step) + ", not a " +
                       (zero_step ? "whole number >= 0" : "positive whole number"));
    steps[i] = static_cast<std::int64_t>(step);
    for (const auto& [name, t] : e)
      if (name != "step") slots[i][name] = adopt(t, params[i]);
  }
  into.steps = std::move(steps);
  into.slots = std::move(slots);
}

}  // namespace hetero::optim::detail
