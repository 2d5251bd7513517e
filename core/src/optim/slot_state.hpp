// SPDX-License-Identifier: Apache-2.0
#pragma once
// The per-parameter state of the optimisers built on named slots (Adagrad, RMSprop,
// Adadelta): a host step count and tensors by torch's state names, written to and read from
// state_dict's "state.<i>.<name>" entries; and their numeric options by torch's keys.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <hetero/nn/module.hpp>
#include <hetero/tensor.hpp>

#include "state_entries.hpp"

namespace hetero::optim::detail {

/// The state of every parameter: steps[i] (kept on the host, so step() reads no device) and
/// slots[i], its tensors by torch's name ("sum", "square_avg", ...) on the parameter's device;
/// a parameter without slots has no state.
struct SlotStates {
  std::vector<std::int64_t>& steps;
  std::vector<std::map<std::string, Tensor>>& slots;
};

/// "state.<i>.step" (a 0-d `step_dtype` tensor on the parameter's device: float32 where torch
/// keeps a tensor, int64 where it keeps a Python int) and "state.<i>.<slot>" for each
/// parameter with slots (the slots alias the optimiser's tensors).
nn::NamedTensors write_slots(const std::vector<std::int64_t>& steps,
                             const std::vector<std::map<std::string, Tensor>>& slots,
                             const std::vector<Tensor>& params, DType step_dtype);

/// Replaces `into` with the state read from `state` (errors as Optimizer::load_state_dict,
/// and then nothing changes): each parameter with entries needs "step" (a whole number, >= 1
/// unless `zero_step` allows 0) and exactly the slots `required(i)` names, among `names`
/// (every slot name the optimiser keeps). Slots are copied to their parameter's device and
/// dtype.
void read_slots(const nn::NamedTensors& state, const std::vector<Tensor>& params,
                const std::set<std::string>& names,
                const std::function<std::set<std::string>(std::size_t)>& required, bool zero_step,
                const char* who, SlotStates into);

/// The numeric options of an options struct by torch's key, as Optimizer::options_of.
template <class Options>
using OptionTable = std::vector<std::pair<const char*, double Options::*>>;

/// `o`'s values in `table`'s order.
template <class Options>
std::vector<std::pair<std::string, double>> read_options(const Options& o,
                                                         const OptionTable<Options>& table) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [key, field] : table) out.emplace_back(key, o.*field);
  return out;
}

/// Optimizer::set_option over `table`: false for a key not in it; checked by `check` when
/// `checked` (nothing changes on error).
template <class Options, class Check>
bool write_option(Options& o, const OptionTable<Options>& table, const std::string& key,
                  double value, bool checked, Check check) {
  for (const auto& [name, field] : table) {
    if (key != name) continue;
    if (checked)
      set_checked(o, field, value, check);
    else
      o.*field = value;
    return true;
  }
  return false;
}

}  // namespace hetero::optim::detail
