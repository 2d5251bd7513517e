// SPDX-License-Identifier: Apache-2.0
// BCELoss and BCEWithLogitsLoss (torch 1.13's binary_cross_entropy and
// binary_cross_entropy_with_logits, aten/src/ATen/native/Loss.cpp).
#include <hetero/nn/loss.hpp>

#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>

#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "../autograd/record.hpp"
#include "../op_helpers.hpp"
#include "loss_helpers.hpp"

namespace hetero::nn {

namespace {

// DTypeError unless `t` (input, target or a weight) has input's floating dtype; ShapeError
// unless a weight broadcasts to input's shape without growing it (as torch expands it).
void check_operand(const char* who, const char* what, const Tensor& t, const Tensor& input,
                   bool weight) {
  if (!is_floating_point(input.dtype()))
    throw DTypeError(std::string(who) + ": expected a floating input, got " +
                     std::string(dtype_name(input.dtype())));
  if (!t.defined()) return;
  if (t.dtype() != input.dtype())
    throw DTypeError(std::string(who) + ": expected " + what + " of the input's dtype " +
                     std::string(dtype_name(input.dtype())) + ", got " +
                     std::string(dtype_name(t.dtype())) + " (as torch)");
  if (weight && detail::broadcast_shapes(who, t.shape(), input.shape()) != input.shape())
    throw ShapeError(std::string(who) + ": " + what + " of shape " + detail::shape_str(t.shape()) +
                     " does not broadcast to the input's " + detail::shape_str(input.shape()));
}

// The checks both binary losses make: one shape, a target of the input's floating dtype,
// and weights (undefined: none) that broadcast to the input.
void check_binary(const char* who, const Tensor& input, const Tensor& target,
                  std::initializer_list<std::pair<const char*, const Tensor*>> weights) {
  loss_detail::check_same_shape(who, input, target);
  check_operand(who, "target", target, input, false);
  for (const auto& [what, w] : weights) check_operand(who, what, *w, input, true);
}

}  // namespace

BCELoss::BCELoss(Tensor weight, Reduction reduction)
    : has_weight_(weight.defined()), reduction_(reduction) {
  if (has_weight_) register_buffer("weight", weight);
}

Tensor BCELoss::class_weight() const {
  return has_weight_ ? named_buffers().at("weight") : Tensor();
}

Tensor BCELoss::forward(const Tensor& input, const Tensor& target) {
  const char* who = "BCELoss";
  const Tensor w = class_weight();
  check_binary(who, input, target, {{"weight", &w}});
  if (input.numel() > 0) {
    // torch's check, which its kernels make element by element; here one read of the range
    // (a host wait), both reductions queued first. NaN fails it, as in torch.
    const Tensor lo = input.min(), hi = input.max();
    const double l = lo.to(DType::float64).item<double>(), h = hi.to(DType::float64).item<double>();
    if (!(l >= 0.0 && h <= 1.0))
      throw ValueError(std::string(who) +
                       ": all elements of input should be between 0 and 1 (as torch), got "
                       "values from " +
                       detail::format_double(l) + " to " + detail::format_double(h) +
                       "; BCEWithLogitsLoss takes logits");
  }
  // (y - 1) max(log(1 - x), -100) - y max(log(x), -100), each log clamped as torch's, so an
  // input of exactly 0 or 1 gives at most 100 per element, not inf.
  Tensor per = detail::untracked([&] {
    const Tensor v = (target - 1.0) * clamp(log(1.0 - input), Number(-100.0), std::nullopt) -
                     target * clamp(log(input), Number(-100.0), std::nullopt);
    return w.defined() ? v * w : v;
  });
  // torch's binary_cross_entropy_backward: g w (x - y) / max((1 - x) x, 1e-12); the target
  // takes no gradient (torch 1.13: "the derivative for 'target' is not implemented").
  per = detail::record("BinaryCrossEntropyBackward", per, {input}, [&] {
    return [x = detail::saved(input), y = detail::saved(target),
            sw = w.defined() ? detail::saved(w) : Tensor()](const Tensor& g) {
      Tensor grad = g * (x - y) / clamp((1.0 - x) * x, Number(1e-12), std::nullopt);
      if (sw.defined()) grad = grad * sw;
      return detail::Gradients{grad};
    };
  });
  return loss_detail::reduced(per, reduction_);
}

BCEWithLogitsLoss::BCEWithLogitsLoss(BCEWithLogitsLossOptions options)
    : has_weight_(options.weight.defined()),
      has_pos_weight_(options.pos_weight.defined()),
      reduction_(options.reduction) {
  if (has_weight_) register_buffer("weight", options.weight);
  if (has_pos_weight_) register_buffer("pos_weight", options.pos_weight);
}

Tensor BCEWithLogitsLoss::class_weight() const {
  return has_weight_ ? named_buffers().at("weight") : Tensor();
}

Tensor BCEWithLogitsLoss::pos_weight() const {
  return has_pos_weight_ ? named_buffers().at("pos_weight") : Tensor();
}

Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) {
  const Tensor w = class_weight(), pw = pos_weight();
  check_binary("BCEWithLogitsLoss", input, target, {{"weight", &w}, {"pos_weight", &pw}});
  // torch's stable form: (1 - y) x + l (log(exp(-m) + exp(-x - m)) + m), m = max(-x, 0),
  // l = 1 + (pos_weight - 1) y (1 without pos_weight): log(1 + exp(-x)) never overflows.
  const Tensor m = clamp(-input, Number(0.0), std::nullopt);
  const Tensor log_term = log(exp(-m) + exp(-input - m)) + m;
  Tensor per =
      (1.0 - target) * input + (pw.defined() ? ((pw - 1.0) * target + 1.0) * log_term : log_term);
  if (w.defined()) per = per * w;
  return loss_detail::reduced(per, reduction_);
}

}  // namespace hetero::nn
