// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/margin_loss.hpp
/// The margin and ranking losses of torch.nn, as torch 1.13's (aten/src/ATen/native/Loss.cpp,
/// LossMultiMargin.cpp, torch/nn/functional.py): HingeEmbeddingLoss, SoftMarginLoss,
/// MultiLabelSoftMarginLoss, MultiMarginLoss (input and target), and MarginRankingLoss,
/// CosineEmbeddingLoss, TripletMarginLoss (three tensors). Composed from element-wise ops and
/// reductions every backend runs; gradients by autograd, the clamps' as torch's clamp_min. The
/// mean of no elements is NaN, as torch.
#include <cstdint>

#include <hetero/nn/loss.hpp>

namespace hetero::nn {

/// As torch.nn.HingeEmbeddingLoss(margin, reduction), for target values 1 and -1: input where
/// the target is 1, max(0, margin - input) where it is -1 (a target that is neither gets both
/// terms, as torch's formula). input and target broadcast (ShapeError otherwise); floating
/// input (DTypeError: torch's mean of integers fails too), any real target.
class HETERO_API HingeEmbeddingLoss : public Loss {
 public:
  /// torch's defaults: margin 1, the mean.
  explicit HingeEmbeddingLoss(double margin = 1.0, Reduction reduction = Reduction::mean)
      : margin_(margin), reduction_(reduction) {}
  using Loss::forward;
  /// The per-element losses, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;

 private:
  double margin_;
  Reduction reduction_;
};

/// As torch.nn.SoftMarginLoss(reduction): log(1 + exp(-target input)) per element (the
/// two-class logistic loss for targets 1 and -1). The target broadcasts to the input's shape
/// (ShapeError otherwise, torch's "output with shape [3, 1] doesn't match the broadcast shape
/// [3, 4]"); floating input (DTypeError).
class HETERO_API SoftMarginLoss : public ReductionLoss {
 public:
  using Loss::forward;
  using ReductionLoss::ReductionLoss;
  /// The per-element losses, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

/// As torch.nn.MultiLabelSoftMarginLoss(weight, reduction): for input [N, C] (or [C]) of
/// logits and a target of 0/1 labels, each sample's -(t log sigmoid(x) + (1 - t) log
/// sigmoid(-x)) times weight [C] (undefined: 1), averaged over its C classes (the last
/// dimension of the input); `none` gives those [N]. input, target and weight broadcast.
/// ShapeError for a 0-d input or weight not 1-D; DTypeError for a non-floating input.
class HETERO_API MultiLabelSoftMarginLoss : public Loss {
 public:
  /// The class weights are a buffer "weight" (moved by to()).
  explicit MultiLabelSoftMarginLoss(Tensor weight = {}, Reduction reduction = Reduction::mean);
  using Loss::forward;
  /// The per-sample losses, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;

 private:
  bool has_weight_ = false;
  Reduction reduction_;
};

/// The multi-label hinge loss, as torch.nn.MultiLabelMarginLoss(reduction): input [N, C] (or
/// [C], or 0-d: one class) of scores and target of its shape (int64) holding each sample's
/// class indices up to the first -1 (the rest ignored); sample n's loss is the sum over its
/// target slots j and the classes i that are not among its targets of max(0, 1 - (x[y_j] -
/// x[i])), divided by C (a repeated target counts twice, as torch's). `none` gives [N] (0-d
/// for a 1-D input). ShapeError for another rank, C = 0 (torch's "Expected non-empty vector
/// or matrix") or a target of another shape; DTypeError for a non-floating input or a target
/// that is not int64; IndexError for a target outside [-1, C) (torch's "'target' is out of
/// range"; one host read of the targets).
class HETERO_API MultiLabelMarginLoss : public ReductionLoss {
 public:
  using Loss::forward;
  using ReductionLoss::ReductionLoss;
  /// The per-sample losses, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

/// MultiMarginLoss's arguments, torch.nn.MultiMarginLoss's names and defaults.
struct MultiMarginLossOptions {
  int p = 1;                              ///< 1 or 2: the hinge, or its square
  double margin = 1.0;                    ///< the margin the target's score must win by
  Tensor weight = {};                     ///< [C] class weights (undefined: 1)
  Reduction reduction = Reduction::mean;  ///< over the samples
};

/// The multi-class hinge loss, as torch.nn.MultiMarginLoss: for input [N, C] (or [C], or 0-d:
/// one class) and class indices target [N] (or 0-d or [1] for one sample), sample i's sum
/// over j != y_i of max(0, margin - x[y_i] + x[j])^p, times weight[y_i], divided by C; `none`
/// gives [N] (the target's shape for one sample). ShapeError for an input of more than 2
/// dimensions or no classes, or a target of another length; DTypeError for a non-floating
/// input, a weight of another dtype or a target that is not int64 (torch's "expected scalar
/// type Long"); IndexError for a target outside [0, C) (torch's "target out of range"; one
/// host read of the targets).
class HETERO_API MultiMarginLoss : public Loss {
 public:
  /// ValueError for p other than 1 and 2 (torch's "only p == 1 and p == 2 supported");
  /// ShapeError for a weight that is not 1-D. The weights are a buffer "weight".
  explicit MultiMarginLoss(MultiMarginLossOptions options = {});
  using Loss::forward;
  /// The per-sample losses, reduced.
  Tensor forward(const Tensor& input, const Tensor& target) override;

 private:
  int p_;
  double margin_;
  bool has_weight_;
  Reduction reduction_;
};

/// What MarginRankingLoss and CosineEmbeddingLoss share: a loss of a pair of inputs and a
/// target of +-1, with a margin and a reduction (torch's defaults: margin 0, the mean).
class HETERO_API PairMarginLoss : public ThreeInputLoss {
 public:
  /// A loss with `margin` (how far the pair must be apart where the target is -1, or ranked
  /// apart) and `reduction`.
  explicit PairMarginLoss(double margin = 0.0, Reduction reduction = Reduction::mean)
      : margin_(margin), reduction_(reduction) {}

 protected:
  double margin_;        ///< the margin, as given
  Reduction reduction_;  ///< the reduction, as given
};

/// As torch.nn.MarginRankingLoss(margin, reduction): max(0, -target (input1 - input2) +
/// margin) per element, target 1 where input1 should rank higher, -1 where input2 should.
/// forward(input1, input2, target): the three of one rank (ShapeError otherwise, torch's "All
/// input tensors should have same dimension"), broadcasting.
class HETERO_API MarginRankingLoss : public PairMarginLoss {
 public:
  using PairMarginLoss::PairMarginLoss;
  using ThreeInputLoss::forward;
  /// The per-element losses, reduced.
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) override;
};

/// As torch.nn.CosineEmbeddingLoss(margin, reduction): with cos the cosine similarity of
/// input1 and input2 along their last dimension (sum x1 x2 / sqrt((|x1|^2 + 1e-12)(|x2|^2 +
/// 1e-12)), torch's EPSILON), 1 - cos where the target is 1, max(0, cos - margin) where it is
/// -1, 0 elsewhere. forward(input1, input2, target): target [N] with inputs [N, D], or 0-d
/// with inputs [D] (ShapeError otherwise, torch's messages); the inputs broadcast.
class HETERO_API CosineEmbeddingLoss : public PairMarginLoss {
 public:
  using PairMarginLoss::PairMarginLoss;
  using ThreeInputLoss::forward;
  /// The per-pair losses, reduced.
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) override;
};

/// TripletMarginLoss's arguments, torch.nn.TripletMarginLoss's names and defaults.
struct TripletMarginLossOptions {
  double margin = 1.0;                    ///< how much closer the positive must be
  double p = 2.0;                         ///< the norm of pairwise_distance
  double eps = 1e-6;                      ///< added to the differences (pairwise_distance)
  bool swap = false;                      ///< also use the positive-negative distance
  Reduction reduction = Reduction::mean;  ///< over the triplets
};

/// The triplet loss (Schroff et al. 2015, FaceNet), as torch.nn.TripletMarginLoss: max(0,
/// margin + d(anchor, positive) - d(anchor, negative)) per triplet, d pairwise_distance(·, ·,
/// p, eps) (<hetero/distance.hpp>); with `swap`, d(anchor, negative) is replaced by
/// min(d(anchor, negative), d(positive, negative)) (Balntas et al. 2016). forward(anchor,
/// positive, negative): [N, D] or [D] each, of one rank (ShapeError otherwise, torch's "All
/// inputs should have same dimension"), broadcasting.
class HETERO_API TripletMarginLoss : public ThreeInputLoss {
 public:
  /// See TripletMarginLossOptions.
  explicit TripletMarginLoss(TripletMarginLossOptions options = {}) : o_(options) {}
  using ThreeInputLoss::forward;
  /// The per-triplet losses, reduced.
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) override;

 private:
  TripletMarginLossOptions o_;
};

}  // namespace hetero::nn
