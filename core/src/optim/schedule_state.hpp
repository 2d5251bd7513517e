// SPDX-License-Identifier: Apache-2.0
#pragma once
// A learning-rate schedule's state_dict read back (LRScheduler, ReduceLROnPlateau): each
// reader checks what it reads and throws ValueError naming the schedule and the entry.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <hetero/nn/module.hpp>

namespace hetero::optim::detail {

class ScheduleState {
 public:
  /// Reads `state` for `who` ("StepLR"); ValueError for an entry not among `names`.
  ScheduleState(const nn::NamedTensors& state, const std::string& who,
                std::initializer_list<const char*> names);
  /// Entry `name`; ValueError "no entry" when absent.
  const Tensor& entry(const char* name) const;
  /// Entry `name` as one number.
  double number(const char* name) const;
  /// Entry `name` as one integer >= `least`.
  std::int64_t count(const char* name, std::int64_t least = 0) const;
  /// Entry `name` as one value per group: a 1-d tensor of `groups` values (or of none when
  /// `may_be_empty`).
  std::vector<double> per_group(const char* name, std::size_t groups, bool may_be_empty) const;

 private:
  const nn::NamedTensors& state_;
  std::string prefix_;  // "<who>.load_state_dict: "
};

}  // namespace hetero::optim::detail
