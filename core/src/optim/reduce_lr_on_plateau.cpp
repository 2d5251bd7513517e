// SPDX-License-Identifier: Apache-2.0
// optim::ReduceLROnPlateau (<hetero/optim/reduce_lr_on_plateau.hpp>), as torch 1.13's
// torch/optim/lr_scheduler.py ReduceLROnPlateau: the same comparisons and updates, in the
// same order, in double precision.
#include <hetero/optim/reduce_lr_on_plateau.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>

#include "../op_helpers.hpp"
#include "schedule_state.hpp"

namespace hetero::optim {

namespace {

void check_not_nan(double v, const char* name) {
  if (std::isnan(v)) throw ValueError(std::string("ReduceLROnPlateau: ") + name + " is NaN");
}

}  // namespace

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options)
    : optimizer_(optimizer), o_(std::move(options)) {
  check_not_nan(o_.factor, "factor");
  check_not_nan(o_.threshold, "threshold");
  check_not_nan(o_.eps, "eps");
  if (o_.factor >= 1.0)
    throw ValueError("ReduceLROnPlateau: Factor should be < 1.0., got " +
                     hetero::detail::format_double(o_.factor) + " (as torch)");
  const std::size_t groups = optimizer.num_param_groups();
  if (o_.min_lr.size() == 1) {
    min_lrs_.assign(groups, o_.min_lr[0]);
  } else if (o_.min_lr.size() == groups) {
    min_lrs_ = o_.min_lr;
  } else {
    throw ValueError("ReduceLROnPlateau: expected " + std::to_string(groups) + " min_lrs, got " +
                     std::to_string(o_.min_lr.size()) + " (one value, or one per group)");
  }
  for (double m : min_lrs_) check_not_nan(m, "min_lr");
  best_ = o_.mode == PlateauMode::min ? std::numeric_limits<double>::infinity()
                                      : -std::numeric_limits<double>::infinity();
}

bool ReduceLROnPlateau::is_better(double a) const {
  const bool rel = o_.threshold_mode == ThresholdMode::rel;
  if (o_.mode == PlateauMode::min)
    return rel ? a < best_ * (1. - o_.threshold) : a < best_ - o_.threshold;
  return rel ? a > best_ * (o_.threshold + 1.) : a > best_ + o_.threshold;
}

void ReduceLROnPlateau::step(double metric) {
  ++last_epoch_;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;
  }
  if (num_bad_epochs_ > o_.patience) {
    for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g) {
      const double old_lr = optimizer_.lr(g);
      const double new_lr = std::max(old_lr * o_.factor, min_lrs_[g]);
      if (old_lr - new_lr > o_.eps) optimizer_.assign(g, "lr", new_lr, false);
    }
    cooldown_counter_ = o_.cooldown;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g)
    last_lr_.push_back(optimizer_.lr(g));
}

nn::NamedTensors ReduceLROnPlateau::state_dict() const {
  const auto host = TensorOptions(Device::cpu());
  const auto count = [&](std::int64_t v) {
    return full({}, static_cast<double>(v), host.dtype(DType::int64));
  };
  nn::NamedTensors out;
  out.push_back("best", full({}, best_, host.dtype(DType::float64)));
  out.push_back("num_bad_epochs", count(num_bad_epochs_));
  out.push_back("cooldown_counter", count(cooldown_counter_));
  out.push_back("last_epoch", count(last_epoch_));
  out.push_back("last_lr", from_vector(last_lr_, host.dtype(DType::float64)));
  return out;
}

void ReduceLROnPlateau::load_state_dict(const nn::NamedTensors& state) {
  const detail::ScheduleState read(
      state, "ReduceLROnPlateau",
      {"best", "num_bad_epochs", "cooldown_counter", "last_epoch", "last_lr"});
  const double best = read.number("best");
  const std::int64_t bad = read.count("num_bad_epochs"), cooldown = read.count("cooldown_counter"),
                     epoch = read.count("last_epoch");
  std::vector<double> last_lr =
      read.per_group("last_lr", optimizer_.num_param_groups(), true);  // none before a step
  best_ = best;
  num_bad_epochs_ = bad;
  cooldown_counter_ = cooldown;
  last_epoch_ = epoch;
  last_lr_ = std::move(last_lr);
}

}  // namespace hetero::optim
