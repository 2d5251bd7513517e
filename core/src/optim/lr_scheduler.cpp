// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/lr_scheduler.hpp>

#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>

#include "schedule_state.hpp"

namespace hetero::optim {

LRScheduler::LRScheduler(Optimizer& optimizer, const char* who) : optimizer_(optimizer), who_(who) {
  for (std::size_t g = 0; g < optimizer.num_param_groups(); ++g) {
    if (!optimizer.get(g, "initial_lr")) optimizer.set(g, "initial_lr", optimizer.lr(g));
    base_lrs_.push_back(*optimizer.get(g, "initial_lr"));
  }
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

void LRScheduler::step() {
  ++last_epoch_;
  std::vector<double> lrs;
  try {
    lrs = get_lr();
  } catch (...) {
    --last_epoch_;
    throw;
  }
  ++step_count_;
  apply(lrs);
}

void LRScheduler::restart() {
  const std::int64_t before = last_epoch_;
  last_epoch_ = 0;
  std::vector<double> lrs;
  try {
    lrs = closed_form_lr();
  } catch (...) {
    last_epoch_ = before;
    throw;
  }
  ++step_count_;
  apply(lrs);
}

void LRScheduler::apply(const std::vector<double>& lrs) {
  for (std::size_t g = 0; g < lrs.size(); ++g) optimizer_.assign(g, "lr", lrs[g], false);
  last_lr_.clear();
  for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g)
    last_lr_.push_back(optimizer_.lr(g));
}

nn::NamedTensors LRScheduler::state_dict() const {
  const auto host = TensorOptions(Device::cpu());
  nn::NamedTensors out;
  out.push_back("last_epoch", full({}, static_cast<double>(last_epoch_), host.dtype(DType::int64)));
  out.push_back("step_count", full({}, static_cast<double>(step_count_), host.dtype(DType::int64)));
  out.push_back("base_lrs", from_vector(base_lrs_, host));
  out.push_back("last_lr", from_vector(last_lr_, host));
  return out;
}

void LRScheduler::load_state_dict(const nn::NamedTensors& state) {
  const detail::ScheduleState read(state, who_,
                                   {"last_epoch", "step_count", "base_lrs", "last_lr"});
  const std::size_t groups = optimizer_.num_param_groups();
  // (-1: a schedule whose turn in a SequentialLR has not come)
  const std::int64_t last_epoch = read.count("last_epoch", -1),
                     step_count = read.count("step_count");
  std::vector<double> base_lrs = read.per_group("base_lrs", groups, false),
                      last_lr = read.per_group("last_lr", groups, false);
  last_epoch_ = last_epoch;
  step_count_ = step_count;
  base_lrs_ = std::move(base_lrs);
  last_lr_ = std::move(last_lr);
}

}  // namespace hetero::optim
