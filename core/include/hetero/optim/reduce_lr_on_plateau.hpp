// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/reduce_lr_on_plateau.hpp
/// hetero::optim::ReduceLROnPlateau — lowers every group's lr by `factor` when a metric
/// (a validation loss, an accuracy) has not improved for `patience` epochs, as torch 1.13's
/// torch.optim.lr_scheduler.ReduceLROnPlateau. Unlike the epoch schedules it is not an
/// LRScheduler (nor is torch 1.13's): step(metric) takes the epoch's metric, and the
/// constructor changes no lr. The rule, term for term torch's:
///   better(a) = a < best * (1 - threshold)   (min, rel)   a < best - threshold  (min, abs)
///               a > best * (1 + threshold)   (max, rel)   a > best + threshold  (max, abs)
///   step(a): better(a) ? (best = a, bad = 0) : ++bad; in cooldown: --cooldown_counter,
///   bad = 0; if bad > patience: lr = max(lr * factor, min_lr) where that lowers it by more
///   than eps, cooldown_counter = cooldown, bad = 0.
/// best starts at +inf (min) or -inf (max); a NaN metric is never better. Ownership: keeps a
/// reference to the optimiser, which must outlive it. Thread-safety: none (as the
/// optimiser's).
#include <cstdint>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/optim/optimizer.hpp>

namespace hetero::optim {

/// Whether a lower metric is better (a loss) or a higher one (an accuracy): torch's mode.
enum class PlateauMode { min, max };
/// Whether `threshold` is relative to the best value or absolute: torch's threshold_mode.
enum class ThresholdMode { rel, abs };

/// ReduceLROnPlateau's arguments, torch's names and defaults.
struct ReduceLROnPlateauOptions {
  PlateauMode mode = PlateauMode::min;                ///< min: lower is better; max: higher
  double factor = 0.1;                                ///< new lr = lr * factor, < 1
  std::int64_t patience = 10;                         ///< bad epochs tolerated before lowering
  double threshold = 1e-4;                            ///< the least improvement that counts
  ThresholdMode threshold_mode = ThresholdMode::rel;  ///< relative or absolute threshold
  /// epochs after a reduction during which bad epochs do not count
  std::int64_t cooldown = 0;
  /// the lr floor: one value for every group, or one per group
  std::vector<double> min_lr = {0.0};
  /// a reduction smaller than this is skipped
  double eps = 1e-8;
};

/// Reduces the lr when a metric stops improving (see the file comment).
class HETERO_API ReduceLROnPlateau {
 public:
  /// Schedules `optimizer`'s groups (kept by reference). ValueError, as torch's: factor >=
  /// 1 ("Factor should be < 1.0."), a min_lr list whose length is neither 1 nor the number
  /// of groups ("expected N min_lrs, got M"); and, beyond torch's checks, a NaN factor,
  /// threshold, min_lr or eps.
  ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options = {});
  ReduceLROnPlateau(const ReduceLROnPlateau&) = delete;
  ReduceLROnPlateau& operator=(const ReduceLROnPlateau&) = delete;

  /// Ends an epoch whose metric is `metric` (see the file comment for the rule). Call it
  /// after the epoch's optimizer.step() calls, as torch says.
  void step(double metric);
  /// Each group's lr after the last step() (empty before the first, as torch 1.13's
  /// _last_lr, which step() sets).
  const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }
  /// The best metric so far (+inf or -inf before any).
  double best() const noexcept { return best_; }
  /// Epochs since the best, not counting those in cooldown (torch's num_bad_epochs).
  std::int64_t num_bad_epochs() const noexcept { return num_bad_epochs_; }
  /// Cooldown epochs left (torch's cooldown_counter).
  std::int64_t cooldown_counter() const noexcept { return cooldown_counter_; }
  /// Steps taken (torch's last_epoch: 0 after construction).
  std::int64_t last_epoch() const noexcept { return last_epoch_; }
  /// The progress as named cpu tensors, for a checkpoint beside the optimiser's: "best"
  /// (0-d float64), "num_bad_epochs", "cooldown_counter", "last_epoch" (0-d int64) and
  /// "last_lr" (float64, one per group once stepped). The arguments are not included:
  /// build the scheduler with the same ones, then load.
  nn::NamedTensors state_dict() const;
  /// Restores state_dict()'s entries. ValueError naming the entry for a missing or unknown
  /// name, a count that is negative or not one number, or a last_lr whose length is neither
  /// 0 nor the number of groups; nothing changes on error.
  void load_state_dict(const nn::NamedTensors& state);

 private:
  bool is_better(double metric) const;
  Optimizer& optimizer_;
  ReduceLROnPlateauOptions o_;
  std::vector<double> min_lrs_;
  double best_;
  std::int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0, last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace hetero::optim
