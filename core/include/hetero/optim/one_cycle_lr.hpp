// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/one_cycle_lr.hpp
/// hetero::optim::OneCycleLR — the 1cycle policy (Smith and Topin 2018), as torch 1.13's
/// torch.optim.lr_scheduler.OneCycleLR, stepped once per batch: the lr rises from
/// max_lr / div_factor to max_lr over the first pct_start of total_steps, then anneals to
/// max_lr / (div_factor * final_div_factor) (three_phase: back to the initial lr first);
/// with cycle_momentum the group's "momentum" (SGD) or "beta1" (Adam, AdamW) moves the
/// opposite way between max_momentum and base_momentum. The groups keep "initial_lr",
/// "max_lr", "min_lr", "max_momentum" and "base_momentum", as torch's (so they are in the
/// optimiser's state_dict).
#include <cstdint>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/optim/lr_scheduler.hpp>

namespace hetero::optim {

/// How a phase moves between its two values (torch's anneal_strategy).
enum class AnnealStrategy { cos, linear };

/// OneCycleLR's arguments, torch's names and defaults. Give total_steps, or epochs and
/// steps_per_epoch (total_steps = their product).
struct OneCycleLROptions {
  std::vector<double> max_lr;        ///< one value for every group, or one per group
  std::int64_t total_steps = 0;      ///< > 0, or 0 to use epochs * steps_per_epoch
  std::int64_t epochs = 0;           ///< > 0 when total_steps is 0
  std::int64_t steps_per_epoch = 0;  ///< > 0 when total_steps is 0
  double pct_start = 0.3;            ///< the rising fraction, in [0, 1]
  AnnealStrategy anneal_strategy = AnnealStrategy::cos;  ///< cosine or linear annealing
  bool cycle_momentum = true;                            ///< needs a "momentum" or "beta1" option
  double base_momentum = 0.85;                           ///< the momentum at the lr's peak
  double max_momentum = 0.95;                            ///< the momentum at the start and end
  double div_factor = 25.;                               ///< initial lr = max_lr / div_factor
  double final_div_factor = 1e4;                         ///< min lr = initial lr / final_div_factor
  bool three_phase = false;  ///< up to max_lr, back to the initial lr, then down to min lr
};

/// The 1cycle schedule (Smith and Topin 2018), as torch.optim.lr_scheduler.OneCycleLR: see
/// the file comment. Stepped once per batch.
class HETERO_API OneCycleLR final : public LRScheduler {
 public:
  /// Sets each group's "initial_lr", "max_lr", "min_lr" (and with cycle_momentum the
  /// momentum, "max_momentum", "base_momentum") and takes the first step. ValueError, with
  /// torch's messages, for no step count, a non-positive one, epochs * steps_per_epoch beyond
  /// int64, a div_factor or final_div_factor of 0 (torch's ZeroDivisionError), pct_start outside
  /// [0, 1], max_lr with neither 1 nor one value per group, or cycle_momentum on an optimiser
  /// without momentum; the first step's errors (get_lr()).
  OneCycleLR(Optimizer& optimizer, OneCycleLROptions options);
  /// total_steps as computed from the options.
  std::int64_t total_steps() const noexcept { return total_steps_; }

 protected:
  /// ValueError "Tried to step N times. The specified number of total steps is M" past the
  /// end, as torch; ValueError at a step in a phase of zero length (pct_start * total_steps
  /// == 1, or pct_start == 1 at the last allowed step), where torch divides by zero.
  std::vector<double> get_lr() override;

 private:
  struct Phase {
    double end_step;
    const char *start_lr, *end_lr, *start_momentum, *end_momentum;
  };
  double anneal(double start, double end, double pct) const;
  OneCycleLROptions options_;
  std::int64_t total_steps_;
  std::vector<Phase> phases_;
  const char* momentum_key_;  // "momentum" or "beta1" with cycle_momentum, else null
};

}  // namespace hetero::optim
