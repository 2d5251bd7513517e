// SPDX-License-Identifier: Apache-2.0
// optim::SequentialLR (<hetero/optim/sequential_lr.hpp>), as torch 1.13's
// torch/optim/lr_scheduler.py SequentialLR.
#include <hetero/optim/sequential_lr.hpp>

#include <algorithm>
#include <string>
#include <utility>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>

#include "nested_schedules.hpp"
#include "schedule_state.hpp"

namespace hetero::optim {

SequentialLR::SequentialLR(Optimizer& optimizer,
                           std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<std::int64_t> milestones)
    : optimizer_(optimizer),
      schedulers_(std::move(schedulers)),
      milestones_(std::move(milestones)) {
  if (milestones_.size() + 1 != schedulers_.size())
    throw ValueError(
        "SequentialLR: Sequential Schedulers expects number of schedulers provided to be one "
        "more than the number of milestone points, but got number of schedulers " +
        std::to_string(schedulers_.size()) + " and the number of milestones to be equal to " +
        std::to_string(milestones_.size()));
  detail::check_schedules(schedulers_, "SequentialLR");
  for (std::size_t i = 0; i < schedulers_.size(); ++i)
    if (&schedulers_[i]->optimizer() != &optimizer)
      throw ValueError(
          "SequentialLR: Sequential Schedulers expects all schedulers to belong to the same "
          "optimizer, but got schedulers at index " +
          std::to_string(i) + " to be different than the optimizer passed in.");
  for (std::size_t i = 1; i < milestones_.size(); ++i)
    if (milestones_[i] < milestones_[i - 1])
      throw ValueError("SequentialLR: milestones must be in non-decreasing order, got " +
                       std::to_string(milestones_[i - 1]) + " before " +
                       std::to_string(milestones_[i]));
  for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g)
    if (!optimizer_.get(g, "initial_lr"))
      throw ValueError("SequentialLR: param group " + std::to_string(g) +
                       " has no 'initial_lr' (it was added after the schedulers were built)");
  // torch's construction: every lr back to its initial_lr, every schedule one epoch back,
  // then the first one's first step again. The first step can throw only where the
  // schedule's own constructor would have: all is put back then.
  // (The lrs are written as the schedules write them, unchecked: through the first one.)
  LRScheduler& first = *schedulers_[0];
  const std::vector<double> lrs = detail::lrs_of(optimizer_);
  std::vector<nn::NamedTensors> before;
  for (const auto& s : schedulers_) before.push_back(s->state_dict());
  try {
    for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g)
      first.set_group(g, "lr", *optimizer_.get(g, "initial_lr"));
    for (const auto& s : schedulers_) --s->last_epoch_;
    first.initial_step();
  } catch (...) {
    for (std::size_t g = 0; g < lrs.size(); ++g) first.set_group(g, "lr", lrs[g]);
    for (std::size_t i = 0; i < schedulers_.size(); ++i) schedulers_[i]->load_state_dict(before[i]);
    throw;
  }
  last_lr_ = first.get_last_lr();
}

void SequentialLR::step() {
  const std::int64_t epoch = last_epoch_ + 1;
  // torch's bisect_right(milestones, epoch): the schedules whose turn has come.
  const auto idx = static_cast<std::size_t>(
      std::upper_bound(milestones_.begin(), milestones_.end(), epoch) - milestones_.begin());
  LRScheduler& s = *schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == epoch)
    s.restart();
  else
    s.step();
  last_epoch_ = epoch;
  last_lr_ = s.get_last_lr();
}

LRScheduler& SequentialLR::scheduler(std::size_t i) const {
  return detail::schedule_at(schedulers_, i, "SequentialLR");
}

nn::NamedTensors SequentialLR::state_dict() const {
  const auto host = TensorOptions(Device::cpu());
  nn::NamedTensors out;
  out.push_back("last_epoch", full({}, static_cast<double>(last_epoch_), host.dtype(DType::int64)));
  out.push_back("last_lr", from_vector(last_lr_, host));
  detail::append_nested(out, schedulers_);
  return out;
}

void SequentialLR::load_state_dict(const nn::NamedTensors& state) {
  std::int64_t last_epoch = 0;
  std::vector<double> last_lr;
  detail::load_nested(state, schedulers_, [&](const nn::NamedTensors& own) {
    const detail::ScheduleState read(own, "SequentialLR", {"last_epoch", "last_lr"});
    last_epoch = read.count("last_epoch");
    last_lr = read.per_group("last_lr", optimizer_.num_param_groups(), false);
  });
  last_epoch_ = last_epoch;
  last_lr_ = std::move(last_lr);
}

}  // namespace hetero::optim
