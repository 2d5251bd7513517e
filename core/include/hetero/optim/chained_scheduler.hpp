// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/chained_scheduler.hpp
/// hetero::optim::ChainedScheduler — several chainable schedules of one optimiser stepped as
/// one, as torch.optim.lr_scheduler.ChainedScheduler (torch 1.13): each step() steps every
/// schedule in order, and since each computes its factor from the group's current lr (the
/// recursive forms of <hetero/optim/lr_schedulers.hpp>), their factors multiply: a warm-up
/// (LinearLR, ConstantLR) chained with a decay (ExponentialLR, StepLR, PolynomialLR). Shares
/// ownership of the schedules; each keeps its reference to the optimiser, which must outlive
/// them. Not an LRScheduler (as in torch 2; it has no base lrs of its own). One thread at a
/// time.
#include <cstddef>
#include <memory>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/optim/lr_scheduler.hpp>

namespace hetero::optim {

/// Schedules stepped together (see the file comment).
class HETERO_API ChainedScheduler {
 public:
  /// The schedules, stepped in this order. ValueError when there are none, when one is null,
  /// or when two schedule different optimisers (torch's "ChainedScheduler expects all
  /// schedulers to belong to the same optimizer").
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);
  /// Steps each schedule in order, then records the groups' lrs. What a schedule throws
  /// propagates (OneCycleLR past total_steps); the schedules before it have stepped, as in
  /// torch.
  void step();
  /// Each group's lr after the last step (at construction: the lrs then), as torch's
  /// get_last_lr().
  const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }
  /// The number of schedules.
  std::size_t size() const noexcept { return schedulers_.size(); }
  /// Schedule i; IndexError when i >= size().
  LRScheduler& scheduler(std::size_t i) const;
  /// "last_lr" (float64, one per group) and each schedule's state_dict() entries under
  /// "schedulers.<i>." (torch nests them as a list under "_schedulers"), on the cpu.
  nn::NamedTensors state_dict() const;
  /// Restores state_dict()'s entries into each schedule. ValueError naming the entry for an
  /// unknown or missing one, or as the schedules' load_state_dict; nothing changes on error.
  void load_state_dict(const nn::NamedTensors& state);

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<double> last_lr_;
};

}  // namespace hetero::optim
