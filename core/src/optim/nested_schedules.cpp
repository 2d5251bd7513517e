// SPDX-License-Identifier: Apache-2.0
#include "nested_schedules.hpp"

#include <hetero/error.hpp>

namespace hetero::optim::detail {

void check_schedules(const Schedules& schedules, const std::string& who) {
  if (schedules.empty()) throw ValueError(who + ": no schedulers");
  for (std::size_t i = 0; i < schedules.size(); ++i) {
    if (!schedules[i]) throw ValueError(who + ": scheduler " + std::to_string(i) + " is null");
    if (&schedules[i]->optimizer() != &schedules[0]->optimizer())
      throw ValueError(who +
                       " expects all schedulers to belong to the same optimizer, but got "
                       "schedulers at index 0 and " +
                       std::to_string(i) + " to be different");
  }
}

LRScheduler& schedule_at(const Schedules& schedules, std::size_t i, const std::string& who) {
  if (i >= schedules.size())
    throw IndexError(who + ": scheduler " + std::to_string(i) + " of " +
                     std::to_string(schedules.size()));
  return *schedules[i];
}

void append_nested(nn::NamedTensors& out, const Schedules& schedules) {
  for (std::size_t i = 0; i < schedules.size(); ++i)
    for (const auto& [name, t] : schedules[i]->state_dict())
      out.push_back("schedulers." + std::to_string(i) + "." + name, t);
}

nn::NamedTensors split_nested(const nn::NamedTensors& state, std::vector<nn::NamedTensors>& parts) {
  nn::NamedTensors own;
  const std::string prefix = "schedulers.";
  for (const auto& [name, t] : state) {
    const std::size_t dot = name.find('.', prefix.size());
    std::size_t index = parts.size();
    // (at most 9 digits: a longer index is no schedule's, and stoul would throw)
    if (name.rfind(prefix, 0) == 0 && dot != std::string::npos && dot > prefix.size() &&
        dot - prefix.size() <= 9 && name.find_first_not_of("0123456789", prefix.size()) == dot)
      index = std::stoul(name.substr(prefix.size(), dot - prefix.size()));
    if (index < parts.size())
      parts[index].push_back(name.substr(dot + 1), t);
    else
      own.push_back(name, t);
  }
  return own;
}

void load_all(const Schedules& schedules, const std::vector<nn::NamedTensors>& parts) {
  // Each schedule's state before, put back if a later one refuses.
  std::vector<nn::NamedTensors> before;
  for (const auto& s : schedules) before.push_back(s->state_dict());
  std::size_t loaded = 0;
  try {
    for (; loaded < schedules.size(); ++loaded) schedules[loaded]->load_state_dict(parts[loaded]);
  } catch (...) {
    for (std::size_t i = 0; i < loaded; ++i) schedules[i]->load_state_dict(before[i]);
    throw;
  }
}

std::vector<double> lrs_of(const Optimizer& opt) {
  std::vector<double> out;
  for (std::size_t g = 0; g < opt.num_param_groups(); ++g) out.push_back(opt.lr(g));
  return out;
}

}  // namespace hetero::optim::detail
