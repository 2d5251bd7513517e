// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/likelihood_loss.hpp
/// The negative log-likelihoods of count and real-valued targets, as torch.nn.PoissonNLLLoss
/// and GaussianNLLLoss (torch 1.13's formulas, aten/src/ATen/native/Loss.cpp and
/// torch/nn/functional.py). Composed from element-wise ops and reductions every backend runs.
#include <hetero/nn/loss.hpp>

namespace hetero::nn {

/// PoissonNLLLoss's arguments, torch.nn.PoissonNLLLoss's names and defaults.
struct PoissonNLLLossOptions {
  bool log_input = true;                  ///< the input is log(rate), else the rate
  bool full = false;                      ///< add Stirling's term t log t - t + log(2 pi t) / 2
  double eps = 1e-8;                      ///< log(input + eps) when !log_input
  Reduction reduction = Reduction::mean;  ///< over the elements
};

/// As torch.nn.PoissonNLLLoss: exp(input) - target input (log_input), or input - target
/// log(input + eps); with `full`, plus Stirling's approximation of log(target!) where the
/// target is above 1. input and target broadcast (ShapeError otherwise); floating input
/// (DTypeError).
class HETERO_API PoissonNLLLoss : public Loss {
 public:
  /// See PoissonNLLLossOptions.
  explicit PoissonNLLLoss(PoissonNLLLossOptions options = {}) : o_(options) {}
  using Loss::forward;
  /// The per-element losses, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;

 private:
  PoissonNLLLossOptions o_;
};

/// GaussianNLLLoss's arguments, torch.nn.GaussianNLLLoss's names and defaults.
struct GaussianNLLLossOptions {
  bool full = false;                      ///< add log(2 pi) / 2
  double eps = 1e-6;                      ///< the variance is clamped below at eps
  Reduction reduction = Reduction::mean;  ///< over the elements
};

/// As torch.nn.GaussianNLLLoss: (log(max(var, eps)) + (input - target)^2 / max(var, eps)) / 2
/// per element (+ log(2 pi) / 2 with `full`). forward(input, target, var): var has the
/// input's shape, or lacks its last dimension or has 1 there (one variance per sample, torch's
/// homoscedastic case); the clamp is not differentiated (torch clamps in place without
/// recording: the gradient reaches var as if unclamped). ValueError for another var shape
/// ("var is of incorrect size") or a negative variance ("var has negative entry/entries"; one
/// host read); input and target broadcast (ShapeError otherwise); floating input (DTypeError).
class HETERO_API GaussianNLLLoss : public ThreeInputLoss {
 public:
  /// See GaussianNLLLossOptions.
  explicit GaussianNLLLoss(GaussianNLLLossOptions options = {}) : o_(options) {}
  using ThreeInputLoss::forward;
  /// The per-element losses, reduced.
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var) override;

 private:
  GaussianNLLLossOptions o_;
};

}  // namespace hetero::nn
