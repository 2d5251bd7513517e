// SPDX-License-Identifier: Apache-2.0
#include "loss_helpers.hpp"

#include <string>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "../gather_unchecked.hpp"
#include "../op_helpers.hpp"

namespace hetero::nn::loss_detail {

bool has_class_weight(const char* who, const Tensor& weight) {
  if (!weight.defined()) return false;
  if (weight.dim() != 1)
    throw ShapeError(std::string(who) + ": weight must be 1-D [C], got shape " +
                     detail::shape_str(weight.shape()));
  return true;
}

void check_floating_input(const char* who, const Tensor& input) {
  detail::impl_of(input, who);
  if (!is_floating_point(input.dtype()))
    throw DTypeError(std::string(who) + ": expected a floating input, got " +
                     std::string(dtype_name(input.dtype())));
}

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

void check_same_shape(const char* who, const Tensor& input, const Tensor& target) {
  detail::impl_of(input, who);
  detail::impl_of(target, who);
  if (input.shape() != target.shape())
    throw ShapeError(std::string(who) + ": input shape " + detail::shape_str(input.shape()) +
                     " and target shape " + detail::shape_str(target.shape()) + " differ");
}

ClassLayout class_layout(const char* who, const Tensor& input) {
  detail::impl_of(input, who);
  if (input.dim() < 1)
    throw ShapeError(std::string(who) +
                     ": input must be [N, C], [C] or [N, C, d1, ...], got shape " +
                     detail::shape_str(input.shape()));
  const std::int64_t class_dim = input.dim() == 1 ? 0 : 1;
  ClassLayout l;
  l.classes = input.size(class_dim);
  l.per_sample = input.shape();
  l.per_sample.erase(l.per_sample.begin() + class_dim);
  for (const auto s : l.per_sample) l.samples *= s;
  return l;
}

Tensor rows_of_classes(const Tensor& input, const ClassLayout& layout) {
  if (input.dim() == 1) return input.unsqueeze(0);
  if (input.dim() == 2) return input;
  std::vector<std::int64_t> order{0};
  for (std::int64_t d = 2; d < input.dim(); ++d) order.push_back(d);
  order.push_back(1);
  return input.permute(order).reshape({layout.samples, layout.classes});
}

void check_class_weight(const char* who, const Tensor& w, const Tensor& input,
                        const ClassLayout& layout) {
  if (!w.defined()) return;
  if (w.dim() != 1 || w.size(0) != layout.classes)
    throw ShapeError(std::string(who) + ": weight must be [C] = [" +
                     std::to_string(layout.classes) + "], got shape " +
                     detail::shape_str(w.shape()));
  // float32 logits with float64 weights gave a float64 loss, and an integer weight was
  // converted.
  if (w.dtype() != input.dtype())
    throw DTypeError(std::string(who) + ": expected weight of the input's dtype " +
                     std::string(dtype_name(input.dtype())) + ", got " +
                     std::string(dtype_name(w.dtype())) + " (as torch; convert one of them)");
}

void check_class_indices(const char* who, const Tensor& target, const Tensor& input,
                         const ClassLayout& layout) {
  detail::impl_of(target, who);
  if (target.shape() != layout.per_sample)
    throw ShapeError(std::string(who) + ": target must be " + detail::shape_str(layout.per_sample) +
                     " class indices for input of shape " + detail::shape_str(input.shape()) +
                     ", got shape " + detail::shape_str(target.shape()));
  if (target.dtype() != DType::int64)
    throw DTypeError(std::string(who) + ": target must hold int64 class indices (as torch), got " +
                     std::string(dtype_name(target.dtype())) + "; convert with .to(DType::int64)");
}

Tensor nll(const char* who, const Tensor& logp, const Tensor& target, const Tensor& w,
           const ClassLayout& layout, std::int64_t ignore_index, Reduction reduction,
           double label_smoothing, bool check_targets) {
  const std::int64_t classes = layout.classes;
  const Tensor indices = target.reshape({layout.samples});
  const Tensor ignored = eq(indices, detail::scalar_operand(indices, ignore_index));
  const Tensor zero = detail::scalar_operand(indices, std::int64_t{0});
  Tensor counted = where(ignored, zero, indices);  // ignored targets read class 0, then count 0
  Tensor stray;  // unchecked: the targets outside [0, C), not ignored
  if (check_targets && layout.samples > 0) {
    // Both reductions are queued before the first wait.
    const Tensor lo = counted.min(), hi = counted.max();
    for (const std::int64_t v : {lo.item<std::int64_t>(), hi.item<std::int64_t>()})
      if (v < 0 || v >= classes)
        throw IndexError(std::string(who) + ": target " + std::to_string(v) +
                         " is out of bounds for " + std::to_string(classes) + " classes");
  } else if (!check_targets) {
    stray = logical_or(lt(counted, 0.0), ge(counted, static_cast<double>(classes)));
    counted = where(stray, zero, counted);
  }
  // logp at each target, and its class weight: gathers of O(M) elements (a one-hot [M, C]
  // matrix was five [M, C] temporaries, 2.6 GB for 4096 targets of 32000 classes, and in a
  // 16-bit dtype it merged classes the dtype cannot tell apart). The indices are in range by
  // now, so the gathers read no range from the device (no host wait).
  const Tensor kept = logical_not(ignored).to(logp.dtype());
  const Tensor at_target =
      detail::gather_unchecked(logp, 1, counted.unsqueeze(1)).squeeze(1);  // [M]
  const Tensor weight_of = w.defined() ? detail::gather_unchecked(w, 0, counted) * kept : kept;
  Tensor per = -(at_target * weight_of);  // [M]: -w[t_i] logp_i, 0 where ignored
  if (label_smoothing > 0) {
    const Tensor weighted = w.defined() ? logp * w : logp;
    per = per * (1.0 - label_smoothing) -
          weighted.sum(1) * kept * (label_smoothing / static_cast<double>(classes));
  }
  // Unchecked: a stray target's loss is NaN (sqrt(-1)), never silently a class's; the others
  // add sqrt(-0) = -0. The term takes no gradient (it does not depend on the input).
  if (stray.defined()) per = per + sqrt(-stray.to(logp.dtype()));
  if (reduction == Reduction::mean) return per.sum() / weight_of.sum();  // torch: / sum w[t_i]
  return reduced(per.reshape(layout.per_sample), reduction);
}

}  // namespace hetero::nn::loss_detail
