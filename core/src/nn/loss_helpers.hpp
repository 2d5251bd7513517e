// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the losses share (nn/loss.hpp): reductions, the class dimension's layout, and the
// negative log-likelihood at class-index targets that NLLLoss and CrossEntropyLoss compute.
#include <cstdint>

#include <hetero/nn/loss.hpp>
#include <hetero/tensor.hpp>

namespace hetero::nn::loss_detail {

/// Whether there are class weights: false for an undefined `weight`; ShapeError naming `who`
/// unless it is 1-D.
bool has_class_weight(const char* who, const Tensor& weight);

/// DTypeError naming `who` unless `input` is floating (Error for an undefined one).
void check_floating_input(const char* who, const Tensor& input);

/// The per-element `values` reduced as `r` (none: as they are; mean of none: NaN).
Tensor reduced(const Tensor& values, Reduction r);

/// ShapeError "<who>: input shape ... and target shape ... differ" unless they are equal.
void check_same_shape(const char* who, const Tensor& input, const Tensor& target);

/// A class-dimension input: [N, C], [C] (one sample) or [N, C, d1, ...].
struct ClassLayout {
  std::int64_t classes = 0;  ///< C
  Shape per_sample;          ///< the input's shape without C: one loss each
  std::int64_t samples = 1;  ///< their count M
};
/// The layout of `input`; ShapeError naming `who` for a 0-d input.
ClassLayout class_layout(const char* who, const Tensor& input);

/// `input` as [M, C] (the class dimension last, one row per sample): [N, C] as it is, [C]
/// as [1, C], [N, C, d1, ...] permuted and copied.
Tensor rows_of_classes(const Tensor& input, const ClassLayout& layout);

/// Checks class weights `w` (undefined: none) against the input: ShapeError unless [C],
/// DTypeError unless of the input's dtype (torch's nll_loss: "expected scalar type Float but
/// found Double").
void check_class_weight(const char* who, const Tensor& w, const Tensor& input,
                        const ClassLayout& layout);

/// Checks class-index targets: ShapeError unless of the per-sample shape, DTypeError unless
/// int64.
void check_class_indices(const char* who, const Tensor& target, const Tensor& input,
                         const ClassLayout& layout);

/// The negative log-likelihood of log-probability rows `logp` [M, C] at class-index targets
/// (checked by check_class_indices), as torch's nll_loss: -w[t_i] logp[i, t_i], 0 where t_i
/// is ignore_index; the mean divides by the sum of w[t_i] over the targets counted. With
/// label_smoothing e (CrossEntropyLoss): (1 - e) times that plus e / C times -sum_c w[c]
/// logp[i, c] (0 where ignored), torch's cross_entropy_loss_label_smoothing. A target outside
/// [0, C) that is not ignore_index: IndexError (check_targets; one host wait) or a NaN loss.
Tensor nll(const char* who, const Tensor& logp, const Tensor& target, const Tensor& w,
           const ClassLayout& layout, std::int64_t ignore_index, Reduction reduction,
           double label_smoothing, bool check_targets);

}  // namespace hetero::nn::loss_detail
