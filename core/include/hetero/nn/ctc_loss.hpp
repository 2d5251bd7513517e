// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/ctc_loss.hpp
/// hetero::nn::ctc_loss and CTCLoss — the connectionist temporal classification loss (Graves
/// et al. 2006) of unsegmented sequence labelling (speech, handwriting), as
/// torch.nn.functional.ctc_loss and torch.nn.CTCLoss.
#include <cstdint>

#include <hetero/nn/loss.hpp>
#include <hetero/tensor.hpp>

namespace hetero::nn {

/// CTCLoss's arguments, torch.nn.CTCLoss's names and defaults.
struct CTCLossOptions {
  std::int64_t blank = 0;  ///< the blank class, in [0, C)
  Reduction reduction =
      Reduction::mean;  ///< mean: each loss over its target length, then the batch mean
  bool zero_infinity =
      false;  ///< infinite losses (impossible alignments) and their gradients become 0
};

/// The negative log-likelihood of each target sequence under all alignments of the input, as
/// torch.nn.functional.ctc_loss. `log_probs` [T, N, C] (or [T, C] unbatched) are log
/// probabilities over C classes per time step (log_softmax's output; floating; 16-bit ones
/// are computed in float32 and the loss rounded once); `targets` (int32 or int64) are [N, S]
/// padded, or [sum(target_lengths)] concatenated (or [S] unbatched), class indices other than
/// the blank; `input_lengths` and `target_lengths` (integer, [N], or 0-d / [1] unbatched)
/// give each sequence's T_n <= T and S_n. The loss of sample n is -log of the sum over
/// alignments of its first T_n steps to its target, by the forward (alpha) recursion over
/// the 2 S_n + 1 states of the blank-extended target in log space (Graves et al., eq. 6-8),
/// inf where no alignment exists (T_n too short; 0 for T_n = 0 and S_n = 0). Reduction:
/// none [N] (0-d unbatched), sum, or mean of each loss divided by max(S_n, 1).
/// Gradient: the derivative of the loss with respect to log_probs (zero for t >= T_n), NaN
/// for a sample with an infinite loss unless zero_infinity, as torch's. Unlike torch 1.13,
/// whose ctc_loss_backward adds exp(log_probs) (it assumes log_softmax inputs), the gradient
/// is the loss's own derivative; through log_softmax both give the same gradient of the
/// logits (docs/semantics.md row 68). One host read of the lengths and one of the targets'
/// range. Composed from gather, where, maximum, exp and log over the T steps.
/// Throws: ShapeError for log_probs that are not 2-D or 3-D or have no time step, lengths
/// whose count is not N, padded targets narrower than the longest S_n or concatenated ones
/// shorter than the sum of the target lengths; DTypeError for non-floating log_probs or
/// non-integer targets or lengths; ValueError for a blank outside [0, C) (torch's "blank
/// must be in label range"), an input length outside [0, T] (torch's "Expected
/// input_lengths to have value at most T") or a negative target length; IndexError for a
/// target outside [0, C); DeviceMismatchError when log_probs and targets are on different
/// devices (the lengths may be on any device).
HETERO_API Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets,
                           const Tensor& input_lengths, const Tensor& target_lengths,
                           CTCLossOptions options = {});

/// ctc_loss as a module, as torch.nn.CTCLoss(blank, reduction, zero_infinity).
class HETERO_API CTCLoss : public Module {
 public:
  /// torch's defaults: blank 0, the mean, infinite losses kept.
  explicit CTCLoss(CTCLossOptions options = {}) : o_(options) {}
  /// ctc_loss(log_probs, targets, input_lengths, target_lengths, options).
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
  /// forward(log_probs, targets, input_lengths, target_lengths).
  Tensor operator()(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                    const Tensor& target_lengths) {
    return forward(log_probs, targets, input_lengths, target_lengths);
  }
  /// Throws ValueError: the loss takes four tensors.
  Tensor forward(const Tensor& x) override;

 private:
  CTCLossOptions o_;
};

}  // namespace hetero::nn
