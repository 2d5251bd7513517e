// SPDX-License-Identifier: Apache-2.0
// The margin and ranking losses (nn/margin_loss.hpp), term for term torch 1.13's
// (aten/src/ATen/native/Loss.cpp, LossMultiMargin.cpp; multilabel_soft_margin_loss in
// torch/nn/functional.py).
#include <hetero/nn/margin_loss.hpp>

#include <optional>
#include <string>

#include <hetero/activations.hpp>
#include <hetero/distance.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/manipulation.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"
#include "loss_helpers.hpp"

namespace hetero::nn {

using loss_detail::check_floating_input;
using loss_detail::reduced;

namespace {

// max(x, 0), differentiated as torch's clamp_min (the gradient passes where x >= 0).
Tensor clamp_min0(const Tensor& x) { return clamp(x, 0, std::nullopt); }

}  // namespace

Tensor HingeEmbeddingLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating_input("HingeEmbeddingLoss", input);
  detail::impl_of(target, "HingeEmbeddingLoss");
  const Tensor margin_term = where(ne(target, 1.0), clamp_min0(margin_ - input), 0.0);
  const Tensor self_term = where(ne(target, -1.0), input, 0.0);
  return reduced(margin_term + self_term, reduction_);
}

Tensor SoftMarginLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating_input("SoftMarginLoss", input);
  detail::impl_of(target, "SoftMarginLoss");
  // torch writes the per-element losses into a tensor of the input's shape: the target
  // broadcasts to it, never the other way.
  const Shape out = detail::broadcast_shapes("SoftMarginLoss", input.shape(), target.shape());
  if (out != input.shape())
    throw ShapeError("SoftMarginLoss: output with shape " + detail::shape_str(input.shape()) +
                     " doesn't match the broadcast shape " + detail::shape_str(out) +
                     " (as torch: the target broadcasts to the input's shape)");
  return reduced(log1p(exp(-input * target)), reduction_);
}

MultiLabelSoftMarginLoss::MultiLabelSoftMarginLoss(Tensor weight, Reduction reduction)
    : has_weight_(loss_detail::has_class_weight("MultiLabelSoftMarginLoss", weight)),
      reduction_(reduction) {
  if (has_weight_) register_buffer("weight", std::move(weight));
}

Tensor MultiLabelSoftMarginLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating_input("MultiLabelSoftMarginLoss", input);
  if (input.dim() == 0)
    throw ShapeError(
        "MultiLabelSoftMarginLoss: expected an input with a class dimension, got a "
        "0-d tensor");
  Tensor loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input));
  if (has_weight_) loss = loss * buffer("weight");
  const std::int64_t class_dim = input.dim() - 1;
  // (torch divides by the input's class count, whatever broadcasting made of the loss)
  loss = loss.sum(class_dim) / static_cast<double>(input.size(class_dim));
  return reduced(loss, reduction_);
}

Tensor MultiLabelMarginLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating_input("MultiLabelMarginLoss", input);
  detail::impl_of(target, "MultiLabelMarginLoss");
  if (input.dim() > 2 || (input.dim() > 0 && input.size(input.dim() - 1) == 0))
    throw ShapeError(
        "MultiLabelMarginLoss: Expected non-empty vector or matrix with optional 0-dim batch "
        "size, but got: " +
        detail::shape_str(input.shape()) + " (as torch)");
  if (target.shape() != input.shape())
    throw ShapeError("MultiLabelMarginLoss: inconsistent size " +
                     detail::shape_str(target.shape()) + " for argument #2 'target', input " +
                     detail::shape_str(input.shape()) + " (as torch)");
  if (target.dtype() != DType::int64)
    throw DTypeError("MultiLabelMarginLoss: expected scalar type Long but found " +
                     std::string(dtype_name(target.dtype())) + " for the target (as torch)");
  detail::check_same_device("MultiLabelMarginLoss", {&input, &target});
  const std::int64_t c = input.dim() == 0 ? 1 : input.size(input.dim() - 1);
  const std::int64_t n = input.dim() == 2 ? input.size(0) : 1;
  const Tensor x = input.reshape({n, c}), t = target.reshape({n, c});
  if (n > 0) {
    const auto [lo, hi] = detail::int_extrema(t);
    if (lo < -1 || hi >= c)
      throw IndexError(
          "MultiLabelMarginLoss: argument #2 'target' is out of range: targets span [" +
          std::to_string(lo) + ", " + std::to_string(hi) + "] for " + std::to_string(c) +
          " classes, -1 ending the list (as torch)");
  }
  // The target slots before the first -1, and which classes are targets.
  const Tensor valid = eq(cumsum(eq(t, -1.0).to(DType::int64), 1), 0.0);
  const Tensor slot_class = where(valid, t, zeros_like(t));
  const Tensor is_target =
      gt(scatter_add(zeros({n, c}, TensorOptions(t.device()).dtype(DType::int64)), 1, slot_class,
                     valid.to(DType::int64)),
         0.0);
  // [N, slot, class]: max(0, 1 - x[y_slot] + x[class]), relu's gradient 0 at 0 as the kernel's
  // `if (z > 0)`
  const Tensor hinge = relu(1.0 - gather(x, 1, slot_class).unsqueeze(2) + x.unsqueeze(1));
  const Tensor counted = logical_and(valid.unsqueeze(2), logical_not(is_target).unsqueeze(1));
  Tensor per_sample = where(counted, hinge, 0.0).sum(2).sum(1) / static_cast<double>(c);
  if (input.dim() < 2) per_sample = per_sample.reshape({});
  return reduced(per_sample, reduction_);
}

MultiMarginLoss::MultiMarginLoss(MultiMarginLossOptions options)
    : p_(options.p),
      margin_(options.margin),
      has_weight_(loss_detail::has_class_weight("MultiMarginLoss", options.weight)),
      reduction_(options.reduction) {
  if (p_ != 1 && p_ != 2)
    throw ValueError("MultiMarginLoss: only p == 1 and p == 2 supported, got p = " +
                     std::to_string(p_) + " (as torch)");
  if (has_weight_) register_buffer("weight", std::move(options.weight));
}

Tensor MultiMarginLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating_input("MultiMarginLoss", input);
  detail::impl_of(target, "MultiMarginLoss");
  // A 0-d input is one sample of one class, as torch's multi_margin_loss_shape_check.
  if (input.dim() > 2 || (input.dim() > 0 && input.size(input.dim() - 1) == 0))
    throw ShapeError(
        "MultiMarginLoss: Expected non-empty vector or matrix with optional 0-dim batch size, "
        "but got: " +
        detail::shape_str(input.shape()) + " (as torch)");
  const std::int64_t c = input.dim() == 0 ? 1 : input.size(input.dim() - 1);
  const std::int64_t n = input.dim() == 2 ? input.size(0) : 1;
  if (target.numel() != n || target.dim() > 1)
    throw ShapeError(
        "MultiMarginLoss: inconsistent target size: " + detail::shape_str(target.shape()) +
        " for input of size: " + detail::shape_str(input.shape()) + " (as torch)");
  if (target.dtype() != DType::int64)
    throw DTypeError("MultiMarginLoss: expected scalar type Long but found " +
                     std::string(dtype_name(target.dtype())) + " for the target (as torch)");
  const Tensor t = target.reshape({n});
  if (n > 0) {
    // torch's kernel checks every target: one host read.
    const auto [lo, hi] = detail::int_extrema(t);
    if (lo < 0 || hi >= c)
      throw IndexError("MultiMarginLoss: target out of range: targets span [" + std::to_string(lo) +
                       ", " + std::to_string(hi) + "] for " + std::to_string(c) +
                       " classes (as torch)");
  }
  if (has_weight_ && buffer("weight").dtype() != input.dtype())
    throw DTypeError("MultiMarginLoss: expected scalar type " +
                     std::string(dtype_name(input.dtype())) + " but found " +
                     std::string(dtype_name(buffer("weight").dtype())) +
                     " for the weight, which must have the input's dtype (as torch)");
  const Tensor x = input.reshape({n, c});
  const Tensor idx = t.unsqueeze(1);
  // z[i, j] = max(0, margin - x[i, y_i] + x[i, j]): relu, whose gradient is 0 at 0, as the
  // kernel's `if (z > 0)`; the target's own column is left out.
  Tensor z = relu(margin_ - gather(x, 1, idx) + x);
  if (p_ == 2) z = z * z;
  if (has_weight_) z = z * index_select(buffer("weight"), 0, t).unsqueeze(1);
  z = where(one_hot(t, c).to(DType::bool_), 0.0, z);
  Tensor per_sample = z.sum(1) / static_cast<double>(c);
  if (input.dim() < 2) per_sample = per_sample.reshape(target.shape());
  return reduced(per_sample, reduction_);
}

Tensor MarginRankingLoss::forward(const Tensor& input1, const Tensor& input2,
                                  const Tensor& target) {
  for (const Tensor* t : {&input1, &input2, &target}) detail::impl_of(*t, "MarginRankingLoss");
  if (input1.dim() != input2.dim() || input1.dim() != target.dim())
    throw ShapeError(
        "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
        "input1: " +
        detail::shape_str(input1.shape()) + ", input2: " + detail::shape_str(input2.shape()) +
        ", target: " + detail::shape_str(target.shape()) + " (as torch)");
  check_floating_input("MarginRankingLoss", input1);
  return reduced(clamp_min0(-target * (input1 - input2) + margin_), reduction_);
}

Tensor CosineEmbeddingLoss::forward(const Tensor& input1, const Tensor& input2,
                                    const Tensor& target) {
  for (const Tensor* t : {&input1, &input2, &target}) detail::impl_of(*t, "CosineEmbeddingLoss");
  const std::int64_t td = target.dim();
  if (td != 0 && td != 1)
    throw ShapeError(
        "CosineEmbeddingLoss: 0D or 1D target tensor expected, multi-target not supported, got "
        "target of size " +
        detail::shape_str(target.shape()) + " (as torch)");
  if (input1.dim() != td + 1 || input2.dim() != td + 1)
    throw ShapeError("CosineEmbeddingLoss: " + std::string(td == 1 ? "1D" : "0D") +
                     " target tensor expects " + (td == 1 ? "2D" : "1D") +
                     " input tensors, but found inputs with sizes " +
                     detail::shape_str(input1.shape()) + " and " +
                     detail::shape_str(input2.shape()) + ". (as torch)");
  check_floating_input("CosineEmbeddingLoss", input1);
  constexpr double kEpsilon = 1e-12;  // torch's EPSILON
  const Tensor prod_sum = (input1 * input2).sum(td);
  const Tensor mag1 = (input1 * input1).sum(td) + kEpsilon;
  const Tensor mag2 = (input2 * input2).sum(td) + kEpsilon;
  const Tensor cos = prod_sum / sqrt(mag1 * mag2);
  const Tensor pos = where(eq(target, 1.0), 1 - cos, 0.0);
  const Tensor neg = where(eq(target, -1.0), clamp_min0(cos - margin_), 0.0);
  return reduced(pos + neg, reduction_);
}

Tensor TripletMarginLoss::forward(const Tensor& anchor, const Tensor& positive,
                                  const Tensor& negative) {
  for (const Tensor* t : {&anchor, &positive, &negative}) detail::impl_of(*t, "TripletMarginLoss");
  if (anchor.dim() != positive.dim() || positive.dim() != negative.dim())
    throw ShapeError("TripletMarginLoss: All inputs should have same dimension but got " +
                     std::to_string(anchor.dim()) + "D, " + std::to_string(positive.dim()) +
                     "D and " + std::to_string(negative.dim()) + "D inputs. (as torch)");
  const Tensor d_pos = pairwise_distance(anchor, positive, o_.p, o_.eps);
  Tensor d_neg = pairwise_distance(anchor, negative, o_.p, o_.eps);
  if (o_.swap) d_neg = minimum(d_neg, pairwise_distance(positive, negative, o_.p, o_.eps));
  return reduced(clamp_min0(o_.margin + d_pos - d_neg), o_.reduction);
}

}  // namespace hetero::nn
