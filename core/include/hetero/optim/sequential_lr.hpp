// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/sequential_lr.hpp
/// hetero::optim::SequentialLR — schedules of one optimiser taking turns, as
/// torch.optim.lr_scheduler.SequentialLR (torch 1.13): schedule i runs from milestone i - 1
/// (epoch 0 for the first) to milestone i. The usual use is a warm-up then a decay:
///
///     auto warmup = std::make_shared<optim::LinearLR>(opt, 0.01, 1.0, 500);
///     auto decay = std::make_shared<optim::CosineAnnealingLR>(opt, 9500);
///     optim::SequentialLR sched(opt, {warmup, decay}, {500});
///
/// Construction does what torch's does: each group's lr goes back to its "initial_lr", every
/// schedule's epoch goes back one (undoing the first step its constructor took), and the
/// first schedule takes its first step again. Each step() then advances the epoch e and steps
/// the schedule whose turn it is; at a milestone that schedule restarts at its epoch 0 from
/// its base lrs by its closed form (torch's step(0)), so a decay starts from the base lr, not
/// from where the warm-up ended. Shares ownership of the schedules; the optimiser must
/// outlive them. Not an LRScheduler (it has no base lrs of its own). One thread at a time.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/optim/lr_scheduler.hpp>
#include <hetero/optim/optimizer.hpp>

namespace hetero::optim {

/// Schedules that take turns at milestones (see the file comment).
class HETERO_API SequentialLR {
 public:
  /// The schedules of `optimizer`, in turn, and the epochs where each next one starts:
  /// milestones.size() == schedulers.size() - 1, in non-decreasing order (a repeated
  /// milestone skips the schedules between). ValueError, with torch's messages, when there
  /// are no schedules, one is null or schedules another optimiser, or the counts disagree;
  /// ValueError for a group without "initial_lr" (added after the schedules) and for
  /// decreasing milestones (torch bisects the unsorted list silently).
  /// Nothing changes on error.
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<std::int64_t> milestones);
  /// Advances the epoch and steps (or, at a milestone, restarts) the schedule whose turn it
  /// is. What that schedule throws propagates (OneCycleLR past total_steps); nothing
  /// changes then.
  void step();
  /// Each group's lr after the last step: the stepped schedule's get_last_lr(), as torch's.
  const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }
  /// The epoch of the last step: 0 after construction (torch's last_epoch).
  std::int64_t last_epoch() const noexcept { return last_epoch_; }
  /// The number of schedules.
  std::size_t size() const noexcept { return schedulers_.size(); }
  /// Schedule i; IndexError when i >= size().
  LRScheduler& scheduler(std::size_t i) const;
  /// The milestones, as given.
  const std::vector<std::int64_t>& milestones() const noexcept { return milestones_; }
  /// "last_epoch" (0-d int64), "last_lr" (float64, one per group) and each schedule's
  /// state_dict() entries under "schedulers.<i>." (torch nests them as a list under
  /// "_schedulers"), on the cpu. The milestones are not included: build it with the same
  /// ones, then load.
  nn::NamedTensors state_dict() const;
  /// Restores state_dict()'s entries into this and each schedule. ValueError naming the
  /// entry for an unknown or missing one, a negative epoch, or as the schedules'
  /// load_state_dict; nothing changes on error.
  void load_state_dict(const nn::NamedTensors& state);

 private:
  Optimizer& optimizer_;
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<std::int64_t> milestones_;
  std::int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace hetero::optim
