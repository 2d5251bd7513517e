// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/lr_schedulers.hpp
/// The learning-rate schedules of torch.optim.lr_scheduler (torch 1.13), by epoch e =
/// last_epoch() and each group's base lr b (its "initial_lr"). Each computes torch's
/// recursive get_lr() from the group's current lr; the closed forms below are what they
/// amount to when nothing else changes the lr. Constructors take the first step (e = 0).
/// ValueError for invalid arguments, with torch's messages.
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/optim/lr_scheduler.hpp>

namespace hetero::optim {

/// lr = b * gamma^floor(e / step_size), as torch.optim.lr_scheduler.StepLR.
class HETERO_API StepLR final : public LRScheduler {
 public:
  /// ValueError unless step_size >= 1.
  StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;
  /// torch's _get_closed_form_lr() (the formula above, term for term).
  std::vector<double> closed_form_lr() override;

 private:
  std::int64_t step_size_;
  double gamma_;
};

/// lr = b * gamma^(milestones <= e), counting repeated milestones (torch's Counter), as
/// torch.optim.lr_scheduler.MultiStepLR.
class HETERO_API MultiStepLR final : public LRScheduler {
 public:
  /// Schedules `optimizer`'s groups (kept by reference: it must outlive the scheduler);
  /// milestones in any order, as torch's.
  MultiStepLR(Optimizer& optimizer, const std::vector<std::int64_t>& milestones,
              double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;
  /// torch's _get_closed_form_lr() (the formula above, term for term).
  std::vector<double> closed_form_lr() override;

 private:
  std::map<std::int64_t, int> milestones_;
  double gamma_;
};

/// lr = b * gamma^e, as torch.optim.lr_scheduler.ExponentialLR.
class HETERO_API ExponentialLR final : public LRScheduler {
 public:
  /// Schedules `optimizer`'s groups (kept by reference: it must outlive the scheduler).
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  std::vector<double> get_lr() override;
  /// torch's _get_closed_form_lr() (the formula above, term for term).
  std::vector<double> closed_form_lr() override;

 private:
  double gamma_;
};

/// lr = b * (start + (end - start) * min(e, total_iters) / total_iters), a linear warm-up
/// (or decay), as torch.optim.lr_scheduler.LinearLR. ValueError unless 0 < start_factor <= 1
/// (torch 2's rule: 0 divides in torch 1.13's chained form, a ZeroDivisionError at its first
/// step), 0 <= end_factor <= 1 and total_iters >= 1.
class HETERO_API LinearLR final : public LRScheduler {
 public:
  /// Schedules `optimizer`'s groups (kept by reference); ValueError as the class says.
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           std::int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;
  /// torch's _get_closed_form_lr() (the formula above, term for term).
  std::vector<double> closed_form_lr() override;

 private:
  double start_, end_;
  std::int64_t total_iters_;
};

/// lr = b * factor for e < total_iters, then b, as torch.optim.lr_scheduler.ConstantLR (a
/// constant warm-up). ValueError unless 0 < factor <= 1 (torch 1.13 takes 0 and raises
/// ZeroDivisionError at epoch total_iters) and total_iters >= 0.
class HETERO_API ConstantLR final : public LRScheduler {
 public:
  /// Schedules `optimizer`'s groups (kept by reference); ValueError as the class says.
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, std::int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;
  /// torch's _get_closed_form_lr() (the formula above, term for term).
  std::vector<double> closed_form_lr() override;

 private:
  double factor_;
  std::int64_t total_iters_;
};

/// lr = b * (1 - min(e, total_iters) / total_iters)^power, a polynomial decay to 0 at
/// total_iters, as torch.optim.lr_scheduler.PolynomialLR (new in 1.13), through its chained
/// form: each step multiplies the lr by ((1 - e / T) / (1 - (e - 1) / T))^power. ValueError
/// unless total_iters >= 1 (torch 1.13 takes 0 and never decays; a negative one divides by
/// 0) and power is finite and >= 0 (a negative power divides by 0 at total_iters: torch's
/// ZeroDivisionError).
class HETERO_API PolynomialLR final : public LRScheduler {
 public:
  /// Schedules `optimizer`'s groups (kept by reference); ValueError as the class says.
  PolynomialLR(Optimizer& optimizer, std::int64_t total_iters = 5, double power = 1.0);

 protected:
  std::vector<double> get_lr() override;
  /// torch's _get_closed_form_lr() (the formula above, term for term).
  std::vector<double> closed_form_lr() override;

 private:
  std::int64_t total_iters_;
  double power_;
};

/// lr = lr_{e-1} * lambda(e) for e >= 1 (the group's current lr times the factor), as
/// torch.optim.lr_scheduler.MultiplicativeLR with one function for every group. The function
/// is called once per step on the stepping thread (torch calls it once per group); what it
/// throws propagates (nothing changes then).
class HETERO_API MultiplicativeLR final : public LRScheduler {
 public:
  /// Schedules `optimizer`'s groups (kept by reference) with `lr_lambda` (copied);
  /// ValueError when it is empty.
  MultiplicativeLR(Optimizer& optimizer, std::function<double(std::int64_t epoch)> lr_lambda);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::function<double(std::int64_t)> lambda_;
};

/// lr = eta_min + (b - eta_min) (1 + cos(pi e / T_max)) / 2 (Loshchilov and Hutter 2017,
/// SGDR without restarts), as torch.optim.lr_scheduler.CosineAnnealingLR: past T_max the
/// lr rises again along the cosine, as torch's. ValueError unless T_max >= 1.
class HETERO_API CosineAnnealingLR final : public LRScheduler {
 public:
  /// Schedules `optimizer`'s groups (kept by reference); ValueError as the class says.
  CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min = 0);

 protected:
  std::vector<double> get_lr() override;
  /// torch's _get_closed_form_lr() (the formula above, term for term).
  std::vector<double> closed_form_lr() override;

 private:
  std::int64_t t_max_;
  double eta_min_;
};

/// lr = eta_min + (b - eta_min) (1 + cos(pi T_cur / T_i)) / 2 (Loshchilov and Hutter 2017,
/// SGDR), as torch.optim.lr_scheduler.CosineAnnealingWarmRestarts stepped with step(): the
/// first cycle lasts T_0 epochs, each next one T_mult times the last; T_cur counts the epochs
/// since the last restart (the lr is b again at each restart). T_cur and T_i follow from e
/// (torch's recursive counters, exactly), so state_dict() resumes it. torch's step(epoch)
/// with a fractional epoch is not offered: step per iteration with T_0 in iterations
/// instead. ValueError, with torch's messages, unless T_0 >= 1 and T_mult >= 1.
class HETERO_API CosineAnnealingWarmRestarts final : public LRScheduler {
 public:
  /// Schedules `optimizer`'s groups (kept by reference); ValueError as the class says.
  CosineAnnealingWarmRestarts(Optimizer& optimizer, std::int64_t T_0, std::int64_t T_mult = 1,
                              double eta_min = 0);
  /// The current cycle's length in epochs (torch's T_i), derived from last_epoch() (so it
  /// is current after load_state_dict too).
  std::int64_t T_i() const noexcept { return cycle().first; }
  /// Epochs since the last restart (torch's T_cur), derived from last_epoch().
  std::int64_t T_cur() const noexcept { return cycle().second; }

 protected:
  std::vector<double> get_lr() override;

 private:
  // {T_i, T_cur} after last_epoch() steps of one, as torch's recursive counters.
  std::pair<std::int64_t, std::int64_t> cycle() const noexcept;

  std::int64_t t_0_, t_mult_;
  double eta_min_;
};

/// lr = b * lambda(e), as torch.optim.lr_scheduler.LambdaLR with one function for every
/// group. The function is called on the stepping thread; what it throws propagates.
class HETERO_API LambdaLR final : public LRScheduler {
 public:
  /// Schedules `optimizer`'s groups (kept by reference) with `lr_lambda` (copied).
  LambdaLR(Optimizer& optimizer, std::function<double(std::int64_t epoch)> lr_lambda);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::function<double(std::int64_t)> lambda_;
};

}  // namespace hetero::optim
