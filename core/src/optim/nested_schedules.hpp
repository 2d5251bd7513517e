// SPDX-License-Identifier: Apache-2.0
#pragma once
// The schedules inside a composite schedule (ChainedScheduler, SequentialLR): their
// state_dict() entries nested under "schedulers.<i>." (torch nests them as a list under
// "_schedulers"), read back all or nothing, and the optimiser's lrs.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <hetero/nn/module.hpp>
#include <hetero/optim/lr_scheduler.hpp>

namespace hetero::optim::detail {

using Schedules = std::vector<std::shared_ptr<LRScheduler>>;

/// ValueError unless `schedules` are non-empty, none null, all of one optimiser; `who`
/// names the composite in the messages (torch's "... expects all schedulers to belong to
/// the same optimizer").
void check_schedules(const Schedules& schedules, const std::string& who);

/// Schedule i of `schedules`; IndexError naming `who` when i is out of range.
LRScheduler& schedule_at(const Schedules& schedules, std::size_t i, const std::string& who);

/// Appends each schedule's state_dict() entries to `out` under "schedulers.<i>.".
void append_nested(nn::NamedTensors& out, const Schedules& schedules);

/// Splits `state` into the composite's own entries and each schedule's (prefix removed);
/// `check_own(own)` reads the own ones first (it throws to refuse them: nothing is loaded
/// then); then loads each schedule's, all or nothing: on a refusal the ones already loaded
/// get their state back and the error propagates.
template <typename CheckOwn>
void load_nested(const nn::NamedTensors& state, const Schedules& schedules, CheckOwn check_own);

/// The optimiser's lr of each group.
std::vector<double> lrs_of(const Optimizer& opt);

// Splits `state` as load_nested says: each schedule's entries into `parts`, the rest returned.
nn::NamedTensors split_nested(const nn::NamedTensors& state, std::vector<nn::NamedTensors>& parts);
// Loads `parts` into `schedules`, all or nothing.
void load_all(const Schedules& schedules, const std::vector<nn::NamedTensors>& parts);

template <typename CheckOwn>
void load_nested(const nn::NamedTensors& state, const Schedules& schedules, CheckOwn check_own) {
  std::vector<nn::NamedTensors> parts(schedules.size());
  const nn::NamedTensors own = split_nested(state, parts);
  check_own(own);
  load_all(schedules, parts);
}

}  // namespace hetero::optim::detail
