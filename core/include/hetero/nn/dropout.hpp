// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/dropout.hpp
/// hetero::nn::Dropout — in training mode, zeroes each element with probability p and
/// scales the rest by 1 / (1 - p); in eval mode, the identity (as torch.nn.Dropout).
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

}  // namespace hetero::nn
