// SPDX-License-Identifier: Apache-2.0
// optim::ChainedScheduler (<hetero/optim/chained_scheduler.hpp>), as torch 1.13's
// torch/optim/lr_scheduler.py ChainedScheduler.
#include <hetero/optim/chained_scheduler.hpp>

#include <string>
#include <utility>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>

#include "schedule_state.hpp"

namespace hetero::optim {

namespace {

// The groups' current lrs.
std::vector<double> lrs_of(const Optimizer& opt) {
  std::vector<double> out;
  for (std::size_t g = 0; g < opt.num_param_groups(); ++g) out.push_back(opt.lr(g));
  return out;
}

}  // namespace

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : schedulers_(std::move(schedulers)) {
  if (schedulers_.empty()) throw ValueError("ChainedScheduler: no schedulers to chain");
  for (std::size_t i = 0; i < schedulers_.size(); ++i) {
    if (!schedulers_[i])
      throw ValueError("ChainedScheduler: scheduler " + std::to_string(i) + " is null");
    if (&schedulers_[i]->optimizer() != &schedulers_[0]->optimizer())
      throw ValueError(
          "ChainedScheduler expects all schedulers to belong to the same optimizer, but got "
          "schedulers at index 0 and " +
          std::to_string(i) + " to be different");
  }
  last_lr_ = lrs_of(schedulers_.back()->optimizer());
}

void ChainedScheduler::step() {
  for (const auto& s : schedulers_) s->step();
  last_lr_ = lrs_of(schedulers_.back()->optimizer());
}

LRScheduler& ChainedScheduler::scheduler(std::size_t i) const {
  if (i >= schedulers_.size())
    throw IndexError("ChainedScheduler: scheduler " + std::to_string(i) + " of " +
                     std::to_string(schedulers_.size()));
  return *schedulers_[i];
}

nn::NamedTensors ChainedScheduler::state_dict() const {
  nn::NamedTensors out;
  out.push_back("last_lr", from_vector(last_lr_, TensorOptions(Device::cpu())));
  for (std::size_t i = 0; i < schedulers_.size(); ++i)
    for (const auto& [name, t] : schedulers_[i]->state_dict())
      out.push_back("schedulers." + std::to_string(i) + "." + name, t);
  return out;
}

void ChainedScheduler::load_state_dict(const nn::NamedTensors& state) {
  // Each schedule's entries, by their prefix; an unknown name is refused before any load.
  std::vector<nn::NamedTensors> parts(schedulers_.size());
  nn::NamedTensors own;
  for (const auto& [name, t] : state) {
    const std::string prefix = "schedulers.";
    const std::size_t dot = name.find('.', prefix.size());
    std::size_t index = schedulers_.size();
    // (at most 9 digits: a longer index is no schedule's, and stoul would throw)
    if (name.rfind(prefix, 0) == 0 && dot != std::string::npos && dot > prefix.size() &&
        dot - prefix.size() <= 9 && name.find_first_not_of("0123456789", prefix.size()) == dot)
      index = std::stoul(name.substr(prefix.size(), dot - prefix.size()));
    if (index < schedulers_.size())
      parts[index].push_back(name.substr(dot + 1), t);
    else
      own.push_back(name, t);
  }
  const detail::ScheduleState read(own, "ChainedScheduler", {"last_lr"});
  std::vector<double> last_lr =
      read.per_group("last_lr", schedulers_.back()->optimizer().num_param_groups(), false);
  // All or nothing: each schedule's state before, put back if a later one refuses.
  std::vector<nn::NamedTensors> before;
  for (const auto& s : schedulers_) before.push_back(s->state_dict());
  std::size_t loaded = 0;
  try {
    for (; loaded < schedulers_.size(); ++loaded)
      schedulers_[loaded]->load_state_dict(parts[loaded]);
  } catch (...) {
    for (std::size_t i = 0; i < loaded; ++i) schedulers_[i]->load_state_dict(before[i]);
    throw;
  }
  last_lr_ = std::move(last_lr);
}

}  // namespace hetero::optim
