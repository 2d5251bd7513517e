// SPDX-License-Identifier: Apache-2.0
// torch 1.13's OneCycleLR (torch/optim/lr_scheduler.py), term for term.
#include <hetero/optim/one_cycle_lr.hpp>

#include <cmath>
#include <numbers>
#include <string>

#include <hetero/error.hpp>

namespace hetero::optim {

namespace {

std::int64_t count_steps(const OneCycleLROptions& o) {
  if (o.total_steps == 0 && o.epochs == 0 && o.steps_per_epoch == 0)
    throw ValueError(
        "OneCycleLR: You must define either total_steps OR (epochs AND steps_per_epoch)");
  if (o.total_steps != 0) {
    if (o.total_steps < 0)
      throw ValueError("OneCycleLR: Expected positive integer total_steps, but got " +
                       std::to_string(o.total_steps));
    return o.total_steps;
  }
  if (o.epochs <= 0)
    throw ValueError("OneCycleLR: Expected positive integer epochs, but got " +
                     std::to_string(o.epochs));
  if (o.steps_per_epoch <= 0)
    throw ValueError("OneCycleLR: Expected positive integer steps_per_epoch, but got " +
                     std::to_string(o.steps_per_epoch));
  std::int64_t steps = 0;
  if (__builtin_mul_overflow(o.epochs, o.steps_per_epoch, &steps))
    throw ValueError("OneCycleLR: epochs * steps_per_epoch (" + std::to_string(o.epochs) + " * " +
                     std::to_string(o.steps_per_epoch) + ") overflows int64");
  return steps;
}

// The option cycle_momentum moves: "momentum" (SGD), "beta1" (Adam), or none.
const char* momentum_key_of(const Optimizer& opt, const OneCycleLROptions& o) {
  if (!o.cycle_momentum) return nullptr;
  return opt.get(0, "momentum") ? "momentum" : opt.get(0, "beta1") ? "beta1" : nullptr;
}

// Checks the options and sets the groups' keys, before LRScheduler reads "initial_lr".
Optimizer& prepared(Optimizer& opt, const OneCycleLROptions& o) {
  count_steps(o);  // throws for no step count or a non-positive one
  if (!(o.pct_start >= 0 && o.pct_start <= 1))
    throw ValueError("OneCycleLR: Expected float between 0 and 1 pct_start, but got " +
                     std::to_string(o.pct_start));
  // torch divides by them in Python: ZeroDivisionError for 0 (the lrs were inf and NaN).
  if (o.div_factor == 0 || o.final_div_factor == 0)
    throw ValueError("OneCycleLR: div_factor and final_div_factor must not be 0, got " +
                     std::to_string(o.div_factor) + " and " + std::to_string(o.final_div_factor) +
                     " (torch: ZeroDivisionError)");
  const std::size_t groups = opt.num_param_groups();
  if (o.max_lr.size() != 1 && o.max_lr.size() != groups)
    throw ValueError("OneCycleLR: expected " + std::to_string(groups) + " values for max_lr, got " +
                     std::to_string(o.max_lr.size()));
  const char* momentum_key = momentum_key_of(opt, o);
  if (o.cycle_momentum) {
    if (!momentum_key)
      throw ValueError(
          "OneCycleLR: optimizer must support momentum with `cycle_momentum` option enabled");
  }
  for (std::size_t g = 0; g < groups; ++g) {
    const double max_lr = o.max_lr[o.max_lr.size() == 1 ? 0 : g];
    const double initial = max_lr / o.div_factor;
    opt.set(g, "initial_lr", initial);
    opt.set(g, "max_lr", max_lr);
    opt.set(g, "min_lr", initial / o.final_div_factor);
    if (momentum_key) {
      opt.set(g, momentum_key, o.max_momentum);
      opt.set(g, "max_momentum", o.max_momentum);
      opt.set(g, "base_momentum", o.base_momentum);
    }
  }
  return opt;
}

}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, OneCycleLROptions options)
    : LRScheduler(prepared(optimizer, options), "OneCycleLR"),
      options_(std::move(options)),
      total_steps_(count_steps(options_)),
      momentum_key_(momentum_key_of(optimizer, options_)) {
  const double p = options_.pct_start * static_cast<double>(total_steps_);
  const double last = static_cast<double>(total_steps_) - 1;
  if (options_.three_phase)
    phases_ = {{p - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {2 * p - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
               {last, "initial_lr", "min_lr", "max_momentum", "max_momentum"}};
  else
    phases_ = {{p - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {last, "max_lr", "min_lr", "base_momentum", "max_momentum"}};
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (options_.anneal_strategy == AnnealStrategy::linear) return (end - start) * pct + start;
  const double cos_out = std::cos(std::numbers::pi * pct) + 1;
  return end + (start - end) / 2.0 * cos_out;
}

std::vector<double> OneCycleLR::get_lr() {
  const std::int64_t step_num = last_epoch();
  if (step_num > total_steps_)
    throw ValueError("OneCycleLR: Tried to step " + std::to_string(step_num + 1) +
                     " times. The specified number of total steps is " +
                     std::to_string(total_steps_));
  const double s = static_cast<double>(step_num);
  std::vector<double> lrs, momenta;
  for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g) {
    const auto value = [&](const char* key) { return *optimizer_.get(g, key); };
    double start_step = 0;
    for (std::size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (s <= phase.end_step || i == phases_.size() - 1) {
        if (phase.end_step - start_step == 0)  // torch: ZeroDivisionError
          throw ValueError("OneCycleLR: phase " + std::to_string(i) + " has no steps (pct_start " +
                           std::to_string(options_.pct_start) + " of total_steps " +
                           std::to_string(total_steps_) + "): step " + std::to_string(step_num) +
                           " divides by zero, as torch's");
        const double pct = (s - start_step) / (phase.end_step - start_step);
        lrs.push_back(anneal(value(phase.start_lr), value(phase.end_lr), pct));
        if (momentum_key_)
          momenta.push_back(anneal(value(phase.start_momentum), value(phase.end_momentum), pct));
        break;
      }
      start_step = phase.end_step;
    }
  }
  for (std::size_t g = 0; g < momenta.size(); ++g) set_group(g, momentum_key_, momenta[g]);
  return lrs;
}

}  // namespace hetero::optim
