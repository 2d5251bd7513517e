// SPDX-License-Identifier: Apache-2.0
// The loss base and the regression losses: MSELoss, L1Loss, SmoothL1Loss, HuberLoss (torch
// 1.13's formulas, aten/src/ATen/native/Loss.cpp).
#include <hetero/nn/loss.hpp>

#include <string>

#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"
#include "loss_helpers.hpp"

namespace hetero::nn {

using loss_detail::check_same_shape;
using loss_detail::reduced;

Tensor Loss::forward(const Tensor&) { throw Error("a loss is called with (input, target)"); }

Tensor ThreeInputLoss::forward(const Tensor&) {
  throw Error("this loss is called with three tensors, as torch's: loss(a, b, c)");
}

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) {
  check_same_shape("MSELoss", input, target);
  const Tensor d = input - target;
  return reduced(d * d, reduction_);
}

Tensor L1Loss::forward(const Tensor& input, const Tensor& target) {
  check_same_shape("L1Loss", input, target);
  return reduced(abs(input - target), reduction_);
}

SmoothL1Loss::SmoothL1Loss(Reduction reduction, double beta) : reduction_(reduction), beta_(beta) {
  if (!(beta >= 0.0))
    throw ValueError(
        "SmoothL1Loss: smooth_l1_loss does not support negative values for beta, got " +
        detail::format_double(beta) + " (as torch)");
}

Tensor SmoothL1Loss::forward(const Tensor& input, const Tensor& target) {
  check_same_shape("SmoothL1Loss", input, target);
  const Tensor d = abs(input - target);
  if (beta_ == 0.0) return reduced(d, reduction_);  // torch: L1 (no division by 0)
  return reduced(where(d < beta_, d * d * (0.5 / beta_), d - 0.5 * beta_), reduction_);
}

HuberLoss::HuberLoss(Reduction reduction, double delta) : reduction_(reduction), delta_(delta) {
  if (!(delta > 0.0))
    throw ValueError("HuberLoss: huber_loss does not support non-positive values for delta, got " +
                     detail::format_double(delta) + " (as torch)");
}

Tensor HuberLoss::forward(const Tensor& input, const Tensor& target) {
  check_same_shape("HuberLoss", input, target);
  const Tensor d = abs(input - target);
  return reduced(where(d < delta_, d * d * 0.5, (d - 0.5 * delta_) * delta_), reduction_);
}

}  // namespace hetero::nn
