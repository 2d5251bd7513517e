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

CrossEntropyLoss::CrossEntropyLoss(Tensor weight) : has_weight_(weight.defined()) {
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
  if (is_floating_point(target.dtype()) || target.dtype() == DType::bool_)
    throw DTypeError("CrossEntropyLoss: target must hold integer class indices, got " +
                     std::string(dtype_name(target.dtype())));
  const std::int64_t classes = input.size(1);
  const Tensor w = class_weight();
  if (w.defined() && w.size(0) != classes)
    throw ShapeError("CrossEntropyLoss: weight has " + std::to_string(w.size(0)) +
                     " classes, input has " + std::to_string(classes));
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
  return -(rows * log_softmax(input, 1)).sum() / rows.sum();
}

}  // namespace hetero::nn
