// SPDX-License-Identifier: Apache-2.0
// NLLLoss and CrossEntropyLoss (torch 1.13's nll_loss and cross_entropy,
// aten/src/ATen/native/LossNLL.cpp).
#include <hetero/nn/loss.hpp>

#include <string>
#include <utility>

#include <hetero/activations.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"
#include "loss_helpers.hpp"

namespace hetero::nn {

namespace ld = loss_detail;

using ld::has_class_weight;

NLLLoss::NLLLoss(NLLLossOptions options)
    : has_weight_(has_class_weight("NLLLoss", options.weight)),
      check_targets_(options.check_targets),
      ignore_index_(options.ignore_index),
      reduction_(options.reduction) {
  if (has_weight_) register_buffer("weight", options.weight);
}

Tensor NLLLoss::class_weight() const {
  return has_weight_ ? named_buffers().at("weight") : Tensor();
}

Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  const ld::ClassLayout layout = ld::class_layout("NLLLoss", input);
  ld::check_class_indices("NLLLoss", target, input, layout);
  const Tensor w = class_weight();
  ld::check_class_weight("NLLLoss", w, input, layout);
  return ld::nll("NLLLoss", ld::rows_of_classes(input, layout), target, w, layout, ignore_index_,
                 reduction_, 0.0, check_targets_);
}

CrossEntropyLoss::CrossEntropyLoss(Tensor weight, bool check_targets)
    : CrossEntropyLoss(
          CrossEntropyLossOptions{.weight = std::move(weight), .check_targets = check_targets}) {}

CrossEntropyLoss::CrossEntropyLoss(CrossEntropyLossOptions options)
    : check_targets_(options.check_targets),
      ignore_index_(options.ignore_index),
      reduction_(options.reduction),
      label_smoothing_(options.label_smoothing) {
  if (!(label_smoothing_ >= 0.0 && label_smoothing_ <= 1.0))
    throw ValueError("CrossEntropyLoss: label_smoothing must be between 0.0 and 1.0, got " +
                     detail::format_double(label_smoothing_) + " (as torch)");
  has_weight_ = has_class_weight("CrossEntropyLoss", options.weight);
  if (has_weight_) register_buffer("weight", options.weight);
}

Tensor CrossEntropyLoss::class_weight() const {
  return has_weight_ ? named_buffers().at("weight") : Tensor();
}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  const char* who = "CrossEntropyLoss";
  const ld::ClassLayout layout = ld::class_layout(who, input);
  detail::impl_of(target, who);
  // Class probabilities: a target of the input's shape (as torch; it must be floating, of
  // any floating dtype: the loss has the promoted dtype, as torch's product). Another floating
  // target is refused as class indices of the wrong dtype.
  const bool probabilities = target.shape() == input.shape();
  if (probabilities) {
    if (!is_floating_point(target.dtype()))
      throw DTypeError(
          "CrossEntropyLoss: Expected floating point type for target with class probabilities, "
          "got " +
          std::string(dtype_name(target.dtype())) + " (as torch)");
    if (ignore_index_ != -100)
      throw ValueError(
          "CrossEntropyLoss: ignore_index is not supported for class probabilities "
          "(floating targets), got " +
          std::to_string(ignore_index_) + " (as torch)");
  } else {
    ld::check_class_indices(who, target, input, layout);
  }
  const Tensor w = class_weight();
  ld::check_class_weight(who, w, input, layout);
  const Tensor logp = log_softmax(ld::rows_of_classes(input, layout), 1);  // [M, C]
  const double e = label_smoothing_;
  if (!probabilities)
    return ld::nll(who, logp, target, w, layout, ignore_index_, reduction_, e, check_targets_);
  // torch's cross_entropy with class probabilities: the mean divides by the sample count.
  Tensor p = ld::rows_of_classes(target, layout);
  if (e > 0) p = p * (1.0 - e) + e / static_cast<double>(layout.classes);
  const Tensor per = -((w.defined() ? logp * w : logp) * p).sum(1);  // [M]
  if (reduction_ == Reduction::mean) return per.sum() / static_cast<double>(layout.samples);
  return ld::reduced(per.reshape(layout.per_sample), reduction_);
}

}  // namespace hetero::nn
