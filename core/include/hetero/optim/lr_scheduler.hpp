// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/lr_scheduler.hpp
/// hetero::optim::LRScheduler — what every learning-rate schedule offers, as torch 1.13's
/// torch.optim.lr_scheduler._LRScheduler: construction records each parameter group's
/// "initial_lr" (unless a scheduler before it did) and takes the first step (epoch 0); each
/// step() after that advances the epoch and writes the new lr into every group. Call
/// optimizer.step() before scheduler.step(), as torch says. The schedules compute the same
/// recursive ("chainable") formulas as torch's get_lr(), term for term in double precision,
/// so the values are torch's to the last bit (tests/torch_optim checks equality on every
/// step of its random runs).
///
/// Ownership: a scheduler keeps a reference to its optimiser, which must outlive it.
/// Thread-safety: none (as the optimiser's).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/optim/optimizer.hpp>

namespace hetero::optim {

/// The base of the learning-rate schedules (see the file comment); one thread at a time.
class HETERO_API LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// Advances one epoch (or step, for per-iteration schedules) and sets each group's lr.
  /// ValueError where the schedule has ended (OneCycleLR past total_steps); then nothing
  /// changes.
  void step();
  /// Each group's lr as set by the last step (torch's get_last_lr()).
  const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }
  /// The epoch of the last step: 0 after construction (torch's last_epoch).
  std::int64_t last_epoch() const noexcept { return last_epoch_; }
  /// The schedule's progress as named tensors, for a checkpoint beside the optimiser's:
  /// "last_epoch" and "step_count" (0-d int64), "base_lrs" and "last_lr" (float64, one per
  /// group), all on the cpu. The schedule's arguments are not included: build the scheduler
  /// with the same ones, then load (resume is then bit-exact).
  nn::NamedTensors state_dict() const;
  /// Restores state_dict()'s entries. ValueError naming the entry for a missing or unknown
  /// name, a negative step count, a last_epoch below -1 (-1: a schedule whose turn in a
  /// SequentialLR has not come), or a length that is not the number of groups; nothing
  /// changes on error.
  void load_state_dict(const nn::NamedTensors& state);
  /// The optimiser whose groups this schedule sets.
  Optimizer& optimizer() const noexcept { return optimizer_; }

 protected:
  /// Records each group's "initial_lr" (set only where absent, as torch's setdefault) as the
  /// base lrs. The most-derived constructor then calls initial_step().
  LRScheduler(Optimizer& optimizer, const char* who);
  /// torch's _initial_step(): counts steps from 0 again and takes the first step (epoch 0).
  void initial_step();
  /// The lrs for epoch last_epoch() (already advanced), one per group, as torch's get_lr();
  /// may throw ValueError (nothing is changed then). May also set other keys of the groups
  /// (OneCycleLR's momentum) only when it does not throw.
  virtual std::vector<double> get_lr() = 0;
  /// The lrs at epoch last_epoch() from the base lrs alone, as torch's _get_closed_form_lr(),
  /// which torch's step(epoch) uses (SequentialLR's step(0) at a milestone). Defaults to
  /// get_lr(), as torch's for the schedules that have none (LambdaLR, MultiplicativeLR,
  /// OneCycleLR, CosineAnnealingWarmRestarts).
  virtual std::vector<double> closed_form_lr() { return get_lr(); }
  /// Sets `key` of group `group` without the optimiser's checks (as torch's schedulers write
  /// param_groups).
  void set_group(std::size_t group, const std::string& key, double value) {
    optimizer_.assign(group, key, value, false);
  }
  /// Group `group`'s current lr.
  double group_lr(std::size_t group) const { return optimizer_.lr(group); }
  /// How many steps were taken, counting the first (torch's _step_count).
  std::int64_t step_count() const noexcept { return step_count_; }

  Optimizer& optimizer_;          ///< the scheduled optimiser (not owned)
  std::vector<double> base_lrs_;  ///< each group's "initial_lr"
  const char* who_;               ///< the schedule's name, for error messages

 private:
  friend class SequentialLR;
  // torch's step(0) (SequentialLR at a milestone): epoch 0 by closed_form_lr().
  void restart();
  // Sets each group's lr to `lrs` and records them as the last lrs.
  void apply(const std::vector<double>& lrs);

  std::int64_t last_epoch_ = -1;
  std::int64_t step_count_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace hetero::optim
