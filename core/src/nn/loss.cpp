// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/loss.hpp>

#include <utility>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../gather_unchecked.hpp"
#include "../op_helpers.hpp"

namespace hetero::nn {

Tensor Loss::forward(const Tensor&) { throw Error("a loss is called with (input, target)"); }

namespace {

// The per-element `values` reduced as `r` (none: as they are).
Tensor reduced(const Tensor& values, Reduction r) {
  switch (r) {
    case Reduction::none:
      return values;
    case Reduction::sum:
      return values.sum();
    default:
      return values.mean();
  }
}

// input [N, C, d1, ...] as [N * d1 * ..., C] (the class dimension last, as one row per
// sample); [N, C] as it is; [C] as [1, C].
Tensor rows_of_classes(const Tensor& input, std::int64_t samples) {
  if (input.dim() == 1) return input.unsqueeze(0);
  if (input.dim() == 2) return input;
  std::vector<std::int64_t> order{0};
  for (std::int64_t d = 2; d < input.dim(); ++d) order.push_back(d);
  order.push_back(1);
  return input.permute(order).reshape({samples, input.size(1)});
}

}  // namespace

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) {
  if (input.shape() != target.shape())
    throw ShapeError("MSELoss: input shape " + detail::shape_str(input.shape()) +
                     " and target shape " + detail::shape_str(target.shape()) + " differ");
  const Tensor d = input - target;
  return reduced(d * d, reduction_);
}

CrossEntropyLoss::CrossEntropyLoss(Tensor weight, bool check_targets)
    : CrossEntropyLoss(
          CrossEntropyLossOptions{.weight = std::move(weight), .check_targets = check_targets}) {}

CrossEntropyLoss::CrossEntropyLoss(CrossEntropyLossOptions options)
    : has_weight_(options.weight.defined()),
      check_targets_(options.check_targets),
      ignore_index_(options.ignore_index),
      reduction_(options.reduction),
      label_smoothing_(options.label_smoothing) {
  if (!(label_smoothing_ >= 0.0 && label_smoothing_ <= 1.0))
    throw ValueError("CrossEntropyLoss: label_smoothing must be between 0.0 and 1.0, got " +
                     detail::format_double(label_smoothing_) + " (as torch)");
  if (has_weight_) {
    if (options.weight.dim() != 1)
      throw ShapeError("CrossEntropyLoss: weight must be 1-D [C], got shape " +
                       detail::shape_str(options.weight.shape()));
    register_buffer("weight", options.weight);
  }
}

Tensor CrossEntropyLoss::class_weight() const {
  return has_weight_ ? named_buffers().at("weight") : Tensor();
}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  detail::impl_of(input, "CrossEntropyLoss");
  detail::impl_of(target, "CrossEntropyLoss");
  if (input.dim() < 1)
    throw ShapeError(
        "CrossEntropyLoss: input must be [N, C], [C] or [N, C, d1, ...] logits, got "
        "shape " +
        detail::shape_str(input.shape()));
  const std::int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const std::int64_t classes = input.size(class_dim);
  Shape per_sample = input.shape();  // the shape of the per-sample losses: input's without C
  per_sample.erase(per_sample.begin() + class_dim);
  std::int64_t samples = 1;
  for (const auto s : per_sample) samples *= s;
  // Class probabilities: a floating target of the input's shape (as torch; another floating
  // target is refused below as class indices of the wrong dtype).
  const bool probabilities = is_floating_point(target.dtype()) && target.shape() == input.shape();
  if (probabilities) {
    if (ignore_index_ != -100)
      throw ValueError(
          "CrossEntropyLoss: ignore_index is not supported for class probabilities "
          "(floating targets), got " +
          std::to_string(ignore_index_) + " (as torch)");
    if (target.dtype() != input.dtype())
      throw DTypeError("CrossEntropyLoss: expected class probabilities of the input's dtype " +
                       std::string(dtype_name(input.dtype())) + ", got " +
                       std::string(dtype_name(target.dtype())) + " (as torch)");
  } else {
    if (target.shape() != per_sample)
      throw ShapeError("CrossEntropyLoss: target must be " + detail::shape_str(per_sample) +
                       " class indices for input of shape " + detail::shape_str(input.shape()) +
                       ", got shape " + detail::shape_str(target.shape()));
    if (target.dtype() != DType::int64)
      throw DTypeError("CrossEntropyLoss: target must hold int64 class indices (as torch), got " +
                       std::string(dtype_name(target.dtype())) +
                       "; convert with .to(DType::int64)");
  }
  const Tensor w = class_weight();
  if (w.defined() && w.size(0) != classes)
    throw ShapeError("CrossEntropyLoss: weight has " + std::to_string(w.size(0)) +
                     " classes, input has " + std::to_string(classes));
  // As torch's nll_loss ("expected scalar type Float but found Double"): float32 logits with
  // float64 weights gave a float64 loss, and an integer weight was converted.
  if (w.defined() && w.dtype() != input.dtype())
    throw DTypeError("CrossEntropyLoss: expected weight of the input's dtype " +
                     std::string(dtype_name(input.dtype())) + ", got " +
                     std::string(dtype_name(w.dtype())) + " (as torch; convert one of them)");
  const double e = label_smoothing_;
  const Tensor logp = log_softmax(rows_of_classes(input, samples), 1);  // [M, C]
  const Tensor weighted = w.defined() ? logp * w : logp;
  const DType t = logp.dtype();

  if (probabilities) {  // torch's cross_entropy with class probabilities
    Tensor p = rows_of_classes(target, samples);
    if (e > 0) p = p * (1.0 - e) + e / static_cast<double>(classes);
    const Tensor per = -(weighted * p).sum(1);  // [M]
    if (reduction_ == Reduction::mean) return per.sum() / static_cast<double>(samples);
    return reduced(per.reshape(per_sample), reduction_);
  }

  const Tensor indices = target.reshape({samples});
  const Tensor ignored = eq(indices, detail::scalar_operand(indices, ignore_index_));
  const Tensor zero = detail::scalar_operand(indices, std::int64_t{0});
  Tensor counted = where(ignored, zero, indices);  // ignored targets read class 0, then count 0
  Tensor stray;  // unchecked: the targets outside [0, C), not ignored
  if (check_targets_ && samples > 0) {
    // Both reductions are queued before the first wait.
    const Tensor lo = counted.min(), hi = counted.max();
    for (const std::int64_t v : {lo.item<std::int64_t>(), hi.item<std::int64_t>()})
      if (v < 0 || v >= classes)
        throw IndexError("CrossEntropyLoss: target " + std::to_string(v) +
                         " is out of bounds for " + std::to_string(classes) + " classes");
  } else if (!check_targets_) {
    stray = logical_or(lt(counted, 0.0), ge(counted, static_cast<double>(classes)));
    counted = where(stray, zero, counted);
  }
  // log_softmax at each target, and its class weight: gathers of O(N) elements (a one-hot
  // [N, C] matrix was five [N, C] temporaries, 2.6 GB for 4096 targets of 32000 classes, and
  // in a 16-bit dtype it merged classes the dtype cannot tell apart). The indices are in
  // range by now, so the gathers read no range from the device (no host wait).
  const Tensor kept = logical_not(ignored).to(t);
  const Tensor at_target =
      detail::gather_unchecked(logp, 1, counted.unsqueeze(1)).squeeze(1);  // [M]
  const Tensor weight_of = w.defined() ? detail::gather_unchecked(w, 0, counted) * kept : kept;
  Tensor per = -(at_target * weight_of);  // [M]: -w[t_i] log p_i, 0 where ignored
  if (e > 0) per = per * (1.0 - e) - weighted.sum(1) * kept * (e / static_cast<double>(classes));
  // Unchecked: a stray target's loss is NaN (sqrt(-1)), never silently a class's; the others
  // add sqrt(-0) = -0. The term takes no gradient (it does not depend on the input).
  if (stray.defined()) per = per + sqrt(-stray.to(t));
  if (reduction_ == Reduction::mean) return per.sum() / weight_of.sum();  // torch: / sum w[t_i]
  return reduced(per.reshape(per_sample), reduction_);
}

}  // namespace hetero::nn
