// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/dropout.hpp
/// hetero::nn::Dropout — in training mode, zeroes each element with probability p and
/// scales the rest by 1 / (1 - p); in eval mode, the identity (as torch.nn.Dropout); its
/// channel-wise forms Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout, and Identity.
#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// x with each element zeroed with probability p and the rest scaled by 1 / (1 - p) when
/// `training`, else x, as torch.nn.functional.dropout. The mask is drawn on x's device from
/// its default generator. p == 1 gives zeros of x's dtype (integers too, as torch); an integer
/// or bool x with 0 < p < 1 in training is a DTypeError (torch: "result type Float can't be
/// cast to the desired output type Long"). ValueError unless 0 <= p <= 1.
HETERO_API Tensor dropout(const Tensor& x, double p, bool training = true);

/// Dropout, as torch.nn.Dropout (see the file comment).
class HETERO_API Dropout : public Module {
 public:
  /// ValueError unless 0 <= p <= 1 (as torch; a ShapeError before 2026-11-29).
  explicit Dropout(double p = 0.5);
  /// Floating x of any shape; the mask is drawn on x's device from its generator
  /// (manual_seed makes it reproducible). p == 1 gives zeros.
  Tensor forward(const Tensor& x) override;
  /// The probability of zeroing an element.
  double p() const noexcept { return p_; }

 private:
  double p_;
};

/// Channel-wise (feature) dropout of x [N, C, ...] (or unbatched [C, ...]), as torch 1.13's
/// F.dropout1d / dropout2d / dropout3d: in training each whole channel (N, C) is zeroed with
/// probability p and the rest scaled by 1 / (1 - p) (Tompson et al. 2015: neighbouring
/// activations of a feature map are correlated, so element-wise dropout barely regularises
/// them); otherwise x. `spatial_dims` (1, 2 or 3) names the function: x must have
/// spatial_dims + 1 (unbatched) or + 2 dimensions — ShapeError otherwise (torch 1.13 raises
/// for dropout1d and only warns for the others; docs/semantics.md row 67). An unbatched input
/// to dropout2d is [C, H, W], one draw per channel (torch 1.13 reads it as [N, C, L]; row 66). The
/// mask is drawn on x's device from its default generator. p == 1 gives zeros; ValueError unless 0
/// <= p <= 1; DTypeError for a non-floating x with 0 < p < 1 in training.
HETERO_API Tensor feature_dropout(const Tensor& x, double p, int spatial_dims,
                                  bool training = true);

/// Alpha dropout for self-normalising networks (Klambauer et al. 2017: SELU), as torch's
/// F.alpha_dropout, or F.feature_alpha_dropout with `feature` (one draw per channel of x [N,
/// C, ...]): in training, dropped elements become SELU's negative saturation -alpha' (alpha'
/// = 1.7580993408473766) and the result is scaled by a = ((alpha'^2 p + 1)(1 - p))^-1/2 and
/// shifted by b = alpha' a p, so that zero mean and unit variance are kept; otherwise x.
/// ValueError unless 0 <= p <= 1; DTypeError for a non-floating x with 0 < p < 1 in training;
/// ShapeError for `feature` with fewer than 2 dimensions.
HETERO_API Tensor alpha_dropout(const Tensor& x, double p, bool training = true,
                                bool feature = false);

/// What Dropout1d, Dropout2d and Dropout3d share: feature_dropout with their number of
/// spatial dimensions in training mode, the identity in eval.
class HETERO_API FeatureDropout : public Module {
 public:
  /// feature_dropout(x, p, spatial_dims(), is_training()).
  Tensor forward(const Tensor& x) override;
  /// The probability of zeroing a channel.
  double p() const noexcept { return p_; }
  /// 1, 2 or 3.
  int spatial_dims() const noexcept { return dims_; }

 protected:
  /// ValueError unless 0 <= p <= 1 (as torch).
  FeatureDropout(int spatial_dims, double p);

 private:
  int dims_;
  double p_;
};

/// torch.nn.Dropout1d: whole channels of [N, C, L] or [C, L].
class HETERO_API Dropout1d : public FeatureDropout {
 public:
  /// ValueError unless 0 <= p <= 1.
  explicit Dropout1d(double p = 0.5) : FeatureDropout(1, p) {}
};

/// torch.nn.Dropout2d: whole channels of [N, C, H, W] or [C, H, W].
class HETERO_API Dropout2d : public FeatureDropout {
 public:
  /// ValueError unless 0 <= p <= 1.
  explicit Dropout2d(double p = 0.5) : FeatureDropout(2, p) {}
};

/// torch.nn.Dropout3d: whole channels of [N, C, D, H, W] or [C, D, H, W].
class HETERO_API Dropout3d : public FeatureDropout {
 public:
  /// ValueError unless 0 <= p <= 1.
  explicit Dropout3d(double p = 0.5) : FeatureDropout(3, p) {}
};

/// torch.nn.AlphaDropout (feature false) and FeatureAlphaDropout (true): alpha_dropout in
/// training mode, the identity in eval.
class HETERO_API AlphaDropout : public Module {
 public:
  /// ValueError unless 0 <= p <= 1 (as torch).
  explicit AlphaDropout(double p = 0.5, bool feature = false);
  /// alpha_dropout(x, p, is_training(), feature).
  Tensor forward(const Tensor& x) override;

 private:
  double p_;
  bool feature_;
};

/// torch.nn.FeatureAlphaDropout: alpha dropout of whole channels.
class HETERO_API FeatureAlphaDropout : public AlphaDropout {
 public:
  /// ValueError unless 0 <= p <= 1 (as torch).
  explicit FeatureAlphaDropout(double p = 0.5) : AlphaDropout(p, true) {}
};

/// torch.nn.Identity: returns its input (a placeholder where a layer is optional).
class HETERO_API Identity : public Module {
 public:
  /// x itself (the same tensor, no copy).
  Tensor forward(const Tensor& x) override { return x; }
};

}  // namespace hetero::nn
