// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/loss.hpp
/// Loss functions: modules called as loss(input, target) returning a tensor on the input's
/// device: 0-d for the mean (PyTorch's default) and sum reductions, the per-element losses
/// for Reduction::none. A loss's state (the class weights of CrossEntropyLoss) is a buffer,
/// so `criterion.to(d)` moves it — the companion article's `criterion.cuda()` — and
/// forgetting to is a DeviceMismatchError, never a silent copy.
#include <cstdint>

#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// How a loss reduces its per-element values, as torch's `reduction` argument: `none` gives
/// them (the target's shape), `mean` their (weighted) mean, `sum` their sum.
enum class Reduction { none, mean, sum };

/// Base of losses. forward(x) alone is an Error: a loss needs a target.
class HETERO_API Loss : public Module {
 public:
  /// The loss of `input` against `target`, on input's device (see the file comment).
  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  /// forward(input, target).
  Tensor operator()(const Tensor& input, const Tensor& target) { return forward(input, target); }
  /// Throws Error: call loss(input, target).
  Tensor forward(const Tensor& x) override;
};

/// Base of the losses of three tensors (torch's MarginRankingLoss, CosineEmbeddingLoss,
/// TripletMarginLoss, GaussianNLLLoss). forward(x) alone is an Error.
class HETERO_API ThreeInputLoss : public Module {
 public:
  /// The loss of the three tensors, on their device (see each loss for their roles).
  virtual Tensor forward(const Tensor& a, const Tensor& b, const Tensor& c) = 0;
  /// forward(a, b, c).
  Tensor operator()(const Tensor& a, const Tensor& b, const Tensor& c) { return forward(a, b, c); }
  /// Throws Error: the loss takes three tensors.
  Tensor forward(const Tensor& x) override;
};

/// Base of the losses whose one argument is the reduction (MSELoss, L1Loss, SoftMarginLoss,
/// MultiLabelMarginLoss).
class HETERO_API ReductionLoss : public Loss {
 public:
  /// A loss reducing as `reduction` (torch's default: the mean).
  explicit ReductionLoss(Reduction reduction = Reduction::mean) : reduction_(reduction) {}

 protected:
  Reduction reduction_;  ///< as given
};

/// (input - target)^2 reduced, as torch.nn.MSELoss(reduction): mean by default. Equal shapes
/// (ShapeError otherwise), floating dtypes. The mean of no elements is NaN, as torch.
class HETERO_API MSELoss : public ReductionLoss {
 public:
  using Loss::forward;
  using ReductionLoss::ReductionLoss;
  /// The squared errors, reduced (see the class comment).
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

/// |input - target| reduced, as torch.nn.L1Loss(reduction). Equal shapes (ShapeError
/// otherwise). Gradient sign(input - target), 0 where they are equal (as torch).
class HETERO_API L1Loss : public ReductionLoss {
 public:
  using Loss::forward;
  using ReductionLoss::ReductionLoss;
  /// The absolute errors, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

/// As torch.nn.SmoothL1Loss(reduction, beta): with d = |input - target|, 0.5 d^2 / beta where
/// d < beta, else d - 0.5 beta; beta = 0 is L1Loss. Equal shapes (ShapeError otherwise).
class HETERO_API SmoothL1Loss : public Loss {
 public:
  /// ValueError for a negative or NaN beta (as torch).
  explicit SmoothL1Loss(Reduction reduction = Reduction::mean, double beta = 1.0);
  using Loss::forward;
  /// The smooth L1 errors, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;

 private:
  Reduction reduction_;
  double beta_;
};

/// As torch.nn.HuberLoss(reduction, delta): with d = |input - target|, 0.5 d^2 where
/// d < delta, else delta (d - 0.5 delta) (SmoothL1Loss with beta = delta, times delta).
/// Equal shapes (ShapeError otherwise).
class HETERO_API HuberLoss : public Loss {
 public:
  /// ValueError for delta <= 0 or NaN (as torch).
  explicit HuberLoss(Reduction reduction = Reduction::mean, double delta = 1.0);
  using Loss::forward;
  /// The Huber errors, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;

 private:
  Reduction reduction_;
  double delta_;
};

/// How KLDivLoss reduces, as its `reduction` argument: Reduction's three and `batchmean`, the
/// sum divided by the input's first dimension (the KL divergence per sample; a 0-d input's
/// sum), which torch recommends over `mean` (the mean over every element).
enum class KLDivReduction { none, mean, batchmean, sum };

/// KLDivLoss's arguments, torch.nn.KLDivLoss's names and defaults.
struct KLDivLossOptions {
  KLDivReduction reduction = KLDivReduction::mean;  ///< see KLDivReduction
  bool log_target = false;  ///< whether the target holds log-probabilities too
};

/// The Kullback-Leibler divergence of the target from the input, as torch.nn.KLDivLoss
/// (torch 1.13's kl_div): input holds log-probabilities; per element t (log t - input) for
/// a probability target t (0 where t is 0; NaN for t < 0), exp(t) (t - input) with
/// log_target. input and target broadcast (ShapeError otherwise) and promote as `-` does;
/// floating input (DTypeError). Gradient -t (-exp(t) with log_target) for the input; for a
/// target that requires grad, torch's: log t + 1 - input, NaN where t is 0.
class HETERO_API KLDivLoss : public Loss {
 public:
  /// See KLDivLossOptions.
  explicit KLDivLoss(KLDivLossOptions options = {}) : options_(options) {}
  using Loss::forward;
  /// The pointwise divergence, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;

 private:
  KLDivLossOptions options_;
};

/// NLLLoss's arguments, torch.nn.NLLLoss's names and defaults.
struct NLLLossOptions {
  Tensor weight = {};                     ///< [C] class weights; undefined: every class 1
  std::int64_t ignore_index = -100;       ///< targets equal to it count nothing
  Reduction reduction = Reduction::mean;  ///< see Reduction
  bool check_targets = true;              ///< as CrossEntropyLoss's
};

/// The negative log-likelihood of log-probabilities, as torch.nn.NLLLoss (torch 1.13's
/// nll_loss): input [N, C], [C] or [N, C, d1, ...] (log_softmax's output, class dimension
/// 1), target int64 class indices of input's shape without C; loss_i = -w[t_i] input[i, t_i],
/// 0 where t_i == ignore_index; the mean divides by the sum of w[t_i] over the targets not
/// ignored (NaN when all are). CrossEntropyLoss is log_softmax then this. Errors and
/// check_targets as CrossEntropyLoss's; the weight is the buffer "weight".
class HETERO_API NLLLoss : public Loss {
 public:
  /// ShapeError when weight is not 1-D.
  explicit NLLLoss(NLLLossOptions options = {});
  using Loss::forward;
  /// The negative log-likelihood, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;
  /// The class weights (undefined when none).
  Tensor class_weight() const;

 private:
  bool has_weight_ = false;
  bool check_targets_ = true;
  std::int64_t ignore_index_ = -100;
  Reduction reduction_ = Reduction::mean;
};

/// Binary cross entropy of probabilities, as torch.nn.BCELoss(weight, reduction) (torch
/// 1.13's binary_cross_entropy): -w (y log x + (1 - y) log(1 - x)), each log clamped to at
/// least -100 (so x = 0 or 1 gives 100, not inf). input x and target y of one shape and
/// floating dtype (ShapeError, DTypeError); weight (the buffer "weight") broadcasts to it.
/// ValueError unless every x lies in [0, 1] (NaN included), as torch, which costs one read
/// of the range (a host wait) per call; for logits, BCEWithLogitsLoss. Gradient torch's:
/// g w (x - y) / max((1 - x) x, 1e-12); none to the target.
class HETERO_API BCELoss : public Loss {
 public:
  /// `weight` undefined: every element weighs 1.
  explicit BCELoss(Tensor weight = {}, Reduction reduction = Reduction::mean);
  using Loss::forward;
  /// The binary cross entropy, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;
  /// The weight (undefined when none).
  Tensor class_weight() const;

 private:
  bool has_weight_ = false;
  Reduction reduction_;
};

/// BCEWithLogitsLoss's arguments, torch.nn.BCEWithLogitsLoss's names and defaults.
struct BCEWithLogitsLossOptions {
  Tensor weight = {};                     ///< broadcast to the input; undefined: 1
  Reduction reduction = Reduction::mean;  ///< see Reduction
  Tensor pos_weight = {};                 ///< weight of the positive term ([C] along the last
                                          ///< dimension); undefined: 1
};

/// Binary cross entropy of logits, as torch.nn.BCEWithLogitsLoss (torch 1.13's
/// binary_cross_entropy_with_logits): with p = pos_weight, -w (p y log sigmoid(x) + (1 - y)
/// log(1 - sigmoid(x))), computed in torch's stable form (1 - y) x + (1 + (p - 1) y)
/// (log(exp(-m) + exp(-x - m)) + m), m = max(-x, 0), which never overflows. input and
/// target of one shape and floating dtype (ShapeError, DTypeError); weight and pos_weight
/// (buffers) broadcast to it, of its dtype.
class HETERO_API BCEWithLogitsLoss : public Loss {
 public:
  /// See BCEWithLogitsLossOptions.
  explicit BCEWithLogitsLoss(BCEWithLogitsLossOptions options = {});
  using Loss::forward;
  /// The binary cross entropy of sigmoid(input), reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;
  /// The weight (undefined when none).
  Tensor class_weight() const;
  /// The positive weight (undefined when none).
  Tensor pos_weight() const;

 private:
  bool has_weight_ = false;
  bool has_pos_weight_ = false;
  Reduction reduction_;
};

/// CrossEntropyLoss's arguments, torch.nn.CrossEntropyLoss's names and defaults.
struct CrossEntropyLossOptions {
  Tensor weight = {};                     ///< [C] class weights; undefined: every class 1
  std::int64_t ignore_index = -100;       ///< class-index targets equal to it count nothing
  Reduction reduction = Reduction::mean;  ///< see Reduction
  double label_smoothing = 0.0;           ///< in [0, 1]: the target mixed with uniform 1 / C
  bool check_targets = true;              ///< see CrossEntropyLoss's class comment
};

/// Cross entropy of logits, as torch.nn.CrossEntropyLoss (torch 1.13's formulas,
/// aten/src/ATen/native/LossNLL.cpp). input: [N, C], [C] (one sample) or [N, C, d1, ...]
/// floating logits, class dimension 1. target, either
///  - int64 class indices of input's shape without C ([N], [], [N, d1, ...]; DTypeError for
///    another integer dtype): loss_i = -w[t_i] log_softmax(input)[i, t_i], 0 where
///    t_i == ignore_index; the mean divides their sum by the sum of w[t_i] over the targets not
///    ignored (NaN when all are). A target outside [0, C) that is not ignore_index raises
///    IndexError naming it (as torch), which reads the targets' range from the device: one
///    host wait per call; with check_targets = false there is no wait, and such a target
///    makes its loss NaN instead (never silently dropped): for validated labels.
///  - or class probabilities of input's shape and any floating dtype (the loss has the
///    promoted dtype of the two, as torch's; DTypeError for an integral one, torch's
///    "Expected floating point type for target with class probabilities"): loss_i = -sum_c
///    w[c] p[i, c] log_softmax(input)[i, c]; the mean divides by the number of samples
///    (N * d1 * ...), not by the weights (as torch); an ignore_index other than -100 is a
///    ValueError (torch's "not supported for floating point target").
/// label_smoothing e mixes each target with the uniform distribution: (1 - e) times the
/// loss above plus e / C times -sum_c w[c] log_softmax(input)[i, c] (for class indices: 0
/// where ignored, and the mean over the same divisor). weight: [C] of the input's dtype
/// (DTypeError else, as torch), the buffer "weight". ShapeError for other shapes, ValueError
/// for label_smoothing outside [0, 1].
class HETERO_API CrossEntropyLoss : public Loss {
 public:
  /// `weight` undefined: every class weighs 1. ShapeError when weight is not 1-D.
  /// `check_targets`: raise for a target outside [0, C) (one host wait per call), or give a
  /// NaN loss without waiting.
  explicit CrossEntropyLoss(Tensor weight = {}, bool check_targets = true);
  /// All of torch's arguments (CrossEntropyLossOptions). ShapeError when weight is not 1-D,
  /// ValueError for label_smoothing outside [0, 1].
  explicit CrossEntropyLoss(CrossEntropyLossOptions options);
  using Loss::forward;
  /// The cross entropy, reduced (see the class comment).
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
  std::int64_t ignore_index_ = -100;
  Reduction reduction_ = Reduction::mean;
  double label_smoothing_ = 0.0;
};

}  // namespace hetero::nn
