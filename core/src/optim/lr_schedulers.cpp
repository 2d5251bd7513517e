// SPDX-License-Identifier: Apache-2.0
// torch 1.13's get_lr() of each schedule (torch/optim/lr_scheduler.py), term for term, so
// that the doubles round as torch's do.
#include <hetero/optim/lr_schedulers.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include <hetero/error.hpp>

#include "../op_helpers.hpp"

namespace hetero::optim {

namespace {

// Each group's current lr times `factor`.
std::vector<double> scaled(const Optimizer& opt, double factor) {
  std::vector<double> out;
  for (std::size_t g = 0; g < opt.num_param_groups(); ++g) out.push_back(opt.lr(g) * factor);
  return out;
}

// Each group's base lr b mapped by `f`, for the closed forms.
template <typename F>
std::vector<double> of_base(const std::vector<double>& base_lrs, F f) {
  std::vector<double> out;
  for (double b : base_lrs) out.push_back(f(b));
  return out;
}

}  // namespace

StepLR::StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma)
    : LRScheduler(optimizer, "StepLR"), step_size_(step_size), gamma_(gamma) {
  if (step_size < 1)
    throw ValueError("StepLR: step_size must be >= 1, got " + std::to_string(step_size));
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  const std::int64_t e = last_epoch();
  return scaled(optimizer_, e == 0 || e % step_size_ != 0 ? 1.0 : gamma_);
}

std::vector<double> StepLR::closed_form_lr() {
  const double k = static_cast<double>(last_epoch() / step_size_);  // Python's // (e >= 0)
  return of_base(base_lrs_, [&](double b) { return b * std::pow(gamma_, k); });
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, const std::vector<std::int64_t>& milestones,
                         double gamma)
    : LRScheduler(optimizer, "MultiStepLR"), gamma_(gamma) {
  for (std::int64_t m : milestones) ++milestones_[m];
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  const auto it = milestones_.find(last_epoch());
  if (it == milestones_.end()) return scaled(optimizer_, 1.0);
  return scaled(optimizer_, std::pow(gamma_, it->second));
}

std::vector<double> MultiStepLR::closed_form_lr() {
  // bisect_right over the sorted milestones, repeats counted: those <= e.
  double k = 0;
  for (const auto& [m, n] : milestones_)
    if (m <= last_epoch()) k += n;
  return of_base(base_lrs_, [&](double b) { return b * std::pow(gamma_, k); });
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer, "ExponentialLR"), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  return scaled(optimizer_, last_epoch() == 0 ? 1.0 : gamma_);
}

std::vector<double> ExponentialLR::closed_form_lr() {
  const auto e = static_cast<double>(last_epoch());
  return of_base(base_lrs_, [&](double b) { return b * std::pow(gamma_, e); });
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   std::int64_t total_iters)
    : LRScheduler(optimizer, "LinearLR"),
      start_(start_factor),
      end_(end_factor),
      total_iters_(total_iters) {
  // 0 divides in the chained form below (torch 1.13: ZeroDivisionError at the first step;
  // torch 2 refuses it here, with this message).
  if (!(start_factor > 0 && start_factor <= 1))
    throw ValueError(
        "LinearLR: Starting multiplicative factor expected to be greater than 0 and less or "
        "equal to 1.");
  if (!(end_factor >= 0 && end_factor <= 1))
    throw ValueError("LinearLR: Ending multiplicative factor expected to be between 0 and 1.");
  if (total_iters < 1)
    throw ValueError("LinearLR: total_iters must be >= 1, got " + std::to_string(total_iters));
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  const std::int64_t e = last_epoch();
  if (e == 0) return scaled(optimizer_, start_);
  if (e > total_iters_) return scaled(optimizer_, 1.0);
  std::vector<double> out;
  for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g)
    out.push_back(group_lr(g) *
                  (1. + (end_ - start_) / (static_cast<double>(total_iters_) * start_ +
                                           static_cast<double>(e - 1) * (end_ - start_))));
  return out;
}

std::vector<double> LinearLR::closed_form_lr() {
  const auto t = static_cast<double>(std::min(total_iters_, last_epoch()));
  return of_base(base_lrs_, [&](double b) {
    return b * (start_ + (end_ - start_) * t / static_cast<double>(total_iters_));
  });
}

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, std::int64_t total_iters)
    : LRScheduler(optimizer, "ConstantLR"), factor_(factor), total_iters_(total_iters) {
  // 0 divides at epoch total_iters (torch 1.13: ZeroDivisionError there).
  if (!(factor > 0 && factor <= 1))
    throw ValueError(
        "ConstantLR: Constant multiplicative factor expected to be between 0 and 1 (0 "
        "excluded: it divides at total_iters), got " +
        hetero::detail::format_double(factor));
  if (total_iters < 0)
    throw ValueError("ConstantLR: total_iters must be >= 0, got " + std::to_string(total_iters));
  initial_step();
}

std::vector<double> ConstantLR::get_lr() {
  const std::int64_t e = last_epoch();
  if (e == 0) return scaled(optimizer_, factor_);
  if (e != total_iters_) return scaled(optimizer_, 1.0);
  return scaled(optimizer_, 1.0 / factor_);
}

std::vector<double> ConstantLR::closed_form_lr() {
  // torch's factor + (e >= total_iters) * (1 - factor): False * x is 0.0.
  const double rest = last_epoch() >= total_iters_ ? 1 - factor_ : 0.0;
  return of_base(base_lrs_, [&](double b) { return b * (factor_ + rest); });
}

PolynomialLR::PolynomialLR(Optimizer& optimizer, std::int64_t total_iters, double power)
    : LRScheduler(optimizer, "PolynomialLR"), total_iters_(total_iters), power_(power) {
  if (total_iters < 1)
    throw ValueError("PolynomialLR: total_iters must be >= 1, got " + std::to_string(total_iters));
  if (!(power >= 0) || std::isinf(power))
    throw ValueError(
        "PolynomialLR: power must be finite and >= 0 (a negative one divides by 0 "
        "at total_iters), got " +
        hetero::detail::format_double(power));
  initial_step();
}

std::vector<double> PolynomialLR::get_lr() {
  const std::int64_t e = last_epoch();
  if (e == 0 || e > total_iters_) return scaled(optimizer_, 1.0);
  const auto t = static_cast<double>(total_iters_);
  // torch's ((1.0 - e / T) / (1.0 - (e - 1) / T)) ** power, term for term.
  const double decay =
      std::pow((1.0 - static_cast<double>(e) / t) / (1.0 - static_cast<double>(e - 1) / t), power_);
  return scaled(optimizer_, decay);
}

std::vector<double> PolynomialLR::closed_form_lr() {
  const double done =
      static_cast<double>(std::min(total_iters_, last_epoch())) / static_cast<double>(total_iters_);
  return of_base(base_lrs_, [&](double b) { return b * std::pow(1.0 - done, power_); });
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer,
                                   std::function<double(std::int64_t)> lr_lambda)
    : LRScheduler(optimizer, "MultiplicativeLR"), lambda_(std::move(lr_lambda)) {
  if (!lambda_) throw ValueError("MultiplicativeLR: lr_lambda is empty");
  initial_step();
}

std::vector<double> MultiplicativeLR::get_lr() {
  const std::int64_t e = last_epoch();
  return scaled(optimizer_, e > 0 ? lambda_(e) : 1.0);
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min)
    : LRScheduler(optimizer, "CosineAnnealingLR"), t_max_(T_max), eta_min_(eta_min) {
  if (T_max < 1)
    throw ValueError("CosineAnnealingLR: T_max must be >= 1, got " + std::to_string(T_max));
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  constexpr double pi = std::numbers::pi;
  const std::int64_t e = last_epoch();
  const double t_max = static_cast<double>(t_max_), de = static_cast<double>(e);
  std::vector<double> out;
  for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g) {
    const double lr = group_lr(g), base = base_lrs_[g];
    if (e == 0)
      out.push_back(lr);
    else if ((e - 1 - t_max_) % (2 * t_max_) == 0)
      out.push_back(lr + (base - eta_min_) * (1 - std::cos(pi / t_max)) / 2);
    else
      out.push_back((1 + std::cos(pi * de / t_max)) / (1 + std::cos(pi * (de - 1) / t_max)) *
                        (lr - eta_min_) +
                    eta_min_);
  }
  return out;
}

std::vector<double> CosineAnnealingLR::closed_form_lr() {
  const double c =
      std::cos(std::numbers::pi * static_cast<double>(last_epoch()) / static_cast<double>(t_max_));
  return of_base(base_lrs_, [&](double b) { return eta_min_ + (b - eta_min_) * (1 + c) / 2; });
}

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, std::int64_t T_0,
                                                         std::int64_t T_mult, double eta_min)
    : LRScheduler(optimizer, "CosineAnnealingWarmRestarts"),
      t_0_(T_0),
      t_mult_(T_mult),
      eta_min_(eta_min) {
  if (T_0 <= 0)
    throw ValueError("CosineAnnealingWarmRestarts: Expected positive integer T_0, but got " +
                     std::to_string(T_0));
  if (T_mult < 1)
    throw ValueError("CosineAnnealingWarmRestarts: Expected integer T_mult >= 1, but got " +
                     std::to_string(T_mult));
  initial_step();
}

std::pair<std::int64_t, std::int64_t> CosineAnnealingWarmRestarts::cycle() const noexcept {
  // torch's counters after e steps of one: T_cur runs 0 .. T_i - 1, then T_i *= T_mult.
  std::int64_t t_i = t_0_, t_cur = last_epoch();
  if (t_mult_ == 1) {
    t_cur %= t_0_;
  } else {
    while (t_cur >= t_i) {
      t_cur -= t_i;
      if (__builtin_mul_overflow(t_i, t_mult_, &t_i)) {  // beyond int64: past any t_cur
        t_i = std::numeric_limits<std::int64_t>::max();
        break;
      }
    }
  }
  return {t_i, t_cur};
}

std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  const auto [t_i, t_cur] = cycle();
  constexpr double pi = std::numbers::pi;
  std::vector<double> out;
  for (double base : base_lrs_)
    out.push_back(eta_min_ +
                  (base - eta_min_) *
                      (1 + std::cos(pi * static_cast<double>(t_cur) / static_cast<double>(t_i))) /
                      2);
  return out;
}

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(std::int64_t)> lr_lambda)
    : LRScheduler(optimizer, "LambdaLR"), lambda_(std::move(lr_lambda)) {
  if (!lambda_) throw ValueError("LambdaLR: lr_lambda is empty");
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  const double factor = lambda_(last_epoch());
  std::vector<double> out;
  for (double base : base_lrs_) out.push_back(base * factor);
  return out;
}

}  // namespace hetero::optim
