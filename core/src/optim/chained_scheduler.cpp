// SPDX-License-Identifier: Apache-2.0
// optim::ChainedScheduler (<hetero/optim/chained_scheduler.hpp>), as torch 1.13's
// torch/optim/lr_scheduler.py ChainedScheduler.
#include <hetero/optim/chained_scheduler.hpp>

#include <string>
#include <utility>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>

#include "nested_schedules.hpp"
#include "schedule_state.hpp"

namespace hetero::optim {

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : schedulers_(std::move(schedulers)) {
  detail::check_schedules(schedulers_, "ChainedScheduler");
  last_lr_ = detail::lrs_of(schedulers_.back()->optimizer());
}

void ChainedScheduler::step() {
  for (const auto& s : schedulers_) s->step();
  last_lr_ = detail::lrs_of(schedulers_.back()->optimizer());
}

LRScheduler& ChainedScheduler::scheduler(std::size_t i) const {
  return detail::schedule_at(schedulers_, i, "ChainedScheduler");
}

nn::NamedTensors ChainedScheduler::state_dict() const {
  nn::NamedTensors out;
  out.push_back("last_lr", from_vector(last_lr_, TensorOptions(Device::cpu())));
  detail::append_nested(out, schedulers_);
  return out;
}

void ChainedScheduler::load_state_dict(const nn::NamedTensors& state) {
  const std::size_t groups = schedulers_.back()->optimizer().num_param_groups();
  std::vector<double> last_lr;
  detail::load_nested(state, schedulers_, [&](const nn::NamedTensors& own) {
    const detail::ScheduleState read(own, "ChainedScheduler", {"last_lr"});
    last_lr = read.per_group("last_lr", groups, false);
  });
  last_lr_ = std::move(last_lr);
}

}  // namespace hetero::optim
