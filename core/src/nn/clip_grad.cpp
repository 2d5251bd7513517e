// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/clip_grad.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

namespace hetero::nn::utils {

namespace {

// The norm of order p of all elements of `t` (p > 0, or infinity), as torch.norm(t, p).
Tensor p_norm(const Tensor& t, double p) {
  if (std::isinf(p)) return max(abs(t));
  if (p == 2) return norm(t);
  if (p == 1) return sum(abs(t));
  return pow(sum(pow(abs(t), p)), 1.0 / p);
}

std::vector<Tensor> grads_of(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  return grads;
}

}  // namespace

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  if (!(norm_type > 0))
    throw ValueError("clip_grad_norm_: norm_type must be > 0 or infinity, got " +
                     std::to_string(norm_type));
  NoGradGuard no_grad;
  const std::vector<Tensor> grads = grads_of(parameters);
  if (grads.empty()) return zeros({});
  const Device& device = grads[0].device();
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(p_norm(g, norm_type).to(device));
  const Tensor total =
      norms.size() == 1 && std::isinf(norm_type) ? norms[0] : p_norm(stack(norms), norm_type);
  if (error_if_nonfinite && !std::isfinite(total.to(DType::float64).item<double>()))
    throw ValueError("clip_grad_norm_: the total norm of order " + std::to_string(norm_type) +
                     " of the gradients is non-finite, so it cannot be clipped (as torch; "
                     "error_if_nonfinite=false scales them by it anyway)");
  const Tensor coef = clamp(max_norm / (total + 1e-6), std::nullopt, Number(1.0));
  for (Tensor g : grads) g.copy_(g * coef.to(g.device()));
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  if (!(clip_value >= 0))
    throw ValueError("clip_grad_value_: clip_value must be >= 0, got " +
                     std::to_string(clip_value));
  NoGradGuard no_grad;
  for (Tensor g : grads_of(parameters)) g.copy_(clamp(g, Number(-clip_value), Number(clip_value)));
}

}  // namespace hetero::nn::utils
