// SPDX-License-Identifier: Apache-2.0
// PoissonNLLLoss and GaussianNLLLoss (nn/likelihood_loss.hpp), term for term torch 1.13's
// (poisson_nll_loss in aten/src/ATen/native/Loss.cpp; gaussian_nll_loss in
// torch/nn/functional.py).
#include <hetero/nn/likelihood_loss.hpp>

#include <cmath>
#include <numbers>
#include <optional>
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "../autograd/record.hpp"
#include "../op_helpers.hpp"
#include "loss_helpers.hpp"

namespace hetero::nn {

using loss_detail::check_floating_input;
using loss_detail::reduced;

namespace {

// max(var, eps) whose gradient is var's own (torch clamps a clone in place under no_grad).
Tensor clamped_passing_gradient(const Tensor& var, double eps) {
  const Tensor c = detail::untracked([&] { return clamp(var, eps, std::nullopt); });
  return detail::record("CloneBackward", c, {var},
                        [] { return [](const Tensor& g) { return detail::Gradients{g}; }; });
}

}  // namespace

Tensor PoissonNLLLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating_input("PoissonNLLLoss", input);
  detail::impl_of(target, "PoissonNLLLoss");
  Tensor loss = o_.log_input ? exp(input) - target * input : input - target * log(input + o_.eps);
  if (o_.full) {
    const Tensor stirling =
        target * log(target) - target + 0.5 * log(2 * std::numbers::pi * target);
    loss = loss + where(le(target, 1.0), 0.0, stirling);
  }
  return reduced(loss, o_.reduction);
}

Tensor GaussianNLLLoss::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  check_floating_input("GaussianNLLLoss", input);
  detail::impl_of(target, "GaussianNLLLoss");
  detail::impl_of(var, "GaussianNLLLoss");
  Tensor v = var;
  if (var.shape() != input.shape()) {
    const Shape& in = input.shape();
    const Shape& vs = var.shape();
    const Shape lead(in.begin(), in.end() - (in.empty() ? 0 : 1));
    if (!in.empty() && vs == lead) {
      v = var.unsqueeze(-1);  // one variance per sample: broadcast along the last dimension
    } else if (!(!in.empty() && !vs.empty() && vs.size() == in.size() && vs.back() == 1 &&
                 Shape(vs.begin(), vs.end() - 1) == lead)) {
      throw ValueError("GaussianNLLLoss: var is of incorrect size: " + detail::shape_str(vs) +
                       " for input " + detail::shape_str(in) + " (as torch)");
    }
  }
  if (any(lt(var, 0.0)).item<bool>())
    throw ValueError("GaussianNLLLoss: var has negative entry/entries (as torch)");
  const Tensor vc = clamped_passing_gradient(v, o_.eps);
  const Tensor d = input - target;
  Tensor loss = 0.5 * (log(vc) + d * d / vc);
  if (o_.full) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  return reduced(loss, o_.reduction);
}

}  // namespace hetero::nn
