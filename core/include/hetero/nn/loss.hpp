// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/loss.hpp
/// Loss functions: modules called as loss(input, target) returning a 0-d tensor on the
/// input's device (mean reduction, as PyTorch's default). A loss's state (the class
/// weights of CrossEntropyLoss) is a buffer, so `criterion.to(d)` moves it — the
/// companion article's `criterion.cuda()` — and forgetting to is a
/// DeviceMismatchError, never a silent copy.
#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// Base of losses. forward(x) alone is an Error: a loss needs a target.
class HETERO_API Loss : public Module {
 public:
  /// The loss of `input` against `target`, a 0-d tensor on input's device.
  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  /// forward(input, target).
  Tensor operator()(const Tensor& input, const Tensor& target) { return forward(input, target); }
  /// Throws Error: call loss(input, target).
  Tensor forward(const Tensor& x) override;
};

/// mean((input - target)^2), as torch.nn.MSELoss. Equal shapes (ShapeError otherwise),
/// floating dtypes.
class HETERO_API MSELoss : public Loss {
 public:
  using Loss::forward;
  /// The mean squared error (see the class comment).
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

/// Cross entropy of logits, as torch.nn.CrossEntropyLoss(weight) with class-index
/// targets and mean reduction:
///   loss = -sum_i w[t_i] * log_softmax(input)[i, t_i] / sum_i w[t_i]
/// input: [N, C] floating logits; target: [N] int64 class indices in [0, C) (DTypeError for
/// another dtype); weight: optional [C] class weights of the input's dtype (DTypeError else,
/// as torch), the buffer "weight". ShapeError for other shapes. A target outside [0, C)
/// raises IndexError naming it (as torch), which reads the target's min and max from the
/// device: one host wait per call. With check_targets = false there is no wait, and such a
/// target makes the loss NaN instead (never silently dropped): for validated labels.
class HETERO_API CrossEntropyLoss : public Loss {
 public:
  /// `weight` undefined: every class weighs 1. ShapeError when weight is not 1-D.
  /// `check_targets`: raise for a target outside [0, C) (one host wait per call), or give a
  /// NaN loss without waiting.
  explicit CrossEntropyLoss(Tensor weight = {}, bool check_targets = true);
  using Loss::forward;
  /// The weighted mean cross entropy (see the class comment).
  Tensor forward(const Tensor& input, const Tensor& target) override;
  /// Module::to(d) (moves the class weights), returning this loss.
  CrossEntropyLoss& to(const Device& d) {
    Module::to(d);
    return *this;
  }
  /// The class weights (undefined when none).
  Tensor class_weight() const;

 private:
  bool has_weight_ = false;
  bool check_targets_ = true;
  Tensor classes_;  // [C] class indices on the input's device, uploaded once per device/dtype/C
};

}  // namespace hetero::nn
