// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/loss.hpp>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"

namespace hetero::nn {

Tensor Loss::forward(const Tensor&) { throw Error("a loss is called with (input, target)"); }

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) {
  if (input.shape() != target.shape())
    throw ShapeError("MSELoss: input shape " + detail::shape_str(input.shape()) +
                     " and target shape " + detail::shape_str(target.shape()) + " differ");
  const Tensor d = input - target;
  return (d * d).mean();
}

CrossEntropyLoss::CrossEntropyLoss(Tensor weight, bool check_targets)
    : has_weight_(weight.defined()), check_targets_(check_targets) {
  if (has_weight_) {
    if (weight.dim() != 1)
      throw ShapeError("CrossEntropyLoss: weight must be 1-D [C], got shape " +
                       detail::shape_str(weight.shape()));
    register_buffer("weight", weight);
  }
}

Tensor CrossEntropyLoss::class_weight() const {
  return has_weight_ ? named_buffers().at("weight") : Tensor();
}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  if (input.dim() != 2)
    throw ShapeError("CrossEntropyLoss: input must be [N, C] logits, got shape " +
                     detail::shape_str(input.shape()));
  if (target.dim() != 1 || target.size(0) != input.size(0))
    throw ShapeError("CrossEntropyLoss: target must be [N] = [" + std::to_string(input.size(0)) +
                     "] class indices, got shape " + detail::shape_str(target.shape()));
  if (target.dtype() != DType::int64)
    throw DTypeError("CrossEntropyLoss: target must hold int64 class indices (as torch), got " +
                     std::string(dtype_name(target.dtype())) + "; convert with .to(DType::int64)");
  const std::int64_t classes = input.size(1);
  if (check_targets_ && target.numel() > 0) {
    // Both reductions are queued before the first wait.
    const Tensor lo = target.min(), hi = target.max();
    for (const std::int64_t v : {lo.item<std::int64_t>(), hi.item<std::int64_t>()})
      if (v < 0 || v >= classes)
        throw IndexError("CrossEntropyLoss: target " + std::to_string(v) +
                         " is out of bounds for " + std::to_string(classes) + " classes");
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
  const DType t = is_floating_point(input.dtype()) ? input.dtype() : DType::float32;
  // One-hot rows without a gather kernel: 1 - |c - t| is 1 at c == t and <= 0 elsewhere
  // (exact for integer class indices), so relu of it is the one-hot matrix.
  // The indices 0..C-1 are uploaded once, not every step (a host upload waits).
  if (!classes_.defined() || classes_.device() != input.device() || classes_.dtype() != t ||
      classes_.numel() != classes)
    classes_ = arange(0, static_cast<double>(classes), 1, TensorOptions(input.device()).dtype(t));
  const Tensor& cls = classes_;
  const Tensor one_hot = relu(1.0 - abs(cls - target.to(t).unsqueeze(1)));
  const Tensor rows = w.defined() ? one_hot * w : one_hot;
  const Tensor loss = -(rows * log_softmax(input, 1)).sum() / rows.sum();
  if (check_targets_) return loss;
  // Unchecked: a row with no class (target outside [0, C)) has missing = 1, and
  // sqrt(-1) = NaN poisons the loss; valid rows add sqrt(-0) = -0. The term takes no
  // gradient (it does not depend on the input).
  const Tensor missing = 1.0 - one_hot.sum(1);
  return loss + sqrt(-missing).sum();
}

}  // namespace hetero::nn
