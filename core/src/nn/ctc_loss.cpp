// SPDX-License-Identifier: Apache-2.0
// ctc_loss and nn::CTCLoss (nn/ctc_loss.hpp): the forward (alpha) recursion of Graves et al.
// 2006 in log space over the blank-extended targets, as torch 1.13's ctc_loss_cpu
// (aten/src/ATen/native/LossCTC.cpp), composed from ops every backend runs so that autograd
// derives the gradient (torch's backward runs the beta recursion instead; docs/semantics.md
// row 68 for the one place they differ).
#include <hetero/nn/ctc_loss.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../autograd/record.hpp"
#include "../op_helpers.hpp"
#include "loss_helpers.hpp"

namespace hetero::nn {

namespace {

using detail::shape_str;
constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

bool is_integer_dtype(DType t) { return !is_floating_point(t) && t != DType::bool_; }

// A length argument as host values: [N] (or 0-d / [1] for an unbatched input).
std::vector<std::int64_t> lengths_of(const Tensor& lengths, const char* name, std::int64_t n) {
  detail::impl_of(lengths, "ctc_loss");
  if (!is_integer_dtype(lengths.dtype()))
    throw DTypeError(std::string("ctc_loss: ") + name + " must be an integer tensor, got " +
                     std::string(dtype_name(lengths.dtype())));
  if (lengths.dim() > 1 || lengths.numel() != n)
    throw ShapeError(std::string("ctc_loss: ") + name + " must be of size batch_size (" +
                     std::to_string(n) + "), got shape " + shape_str(lengths.shape()) +
                     " (as torch)");
  return lengths.to(DType::int64).to_vector<std::int64_t>();
}

// log(sum_i exp(x_i)) element-wise over tensors of one shape: -inf where every x_i is -inf,
// and a finite gradient there (zero), unlike the textbook form (whose exp(x - max) is NaN
// at max = -inf). The shift by the maximum is a constant to autograd.
Tensor log_sum_exp(const std::vector<Tensor>& xs) {
  Tensor m = xs[0].detach();
  for (std::size_t i = 1; i < xs.size(); ++i) m = maximum(m, xs[i].detach());
  const Tensor shift = where(eq(m, kMinusInf), 0.0, m);
  Tensor total = exp(xs[0] - shift);
  for (std::size_t i = 1; i < xs.size(); ++i) total = total + exp(xs[i] - shift);
  const Tensor none = eq(total, 0.0);
  return where(none, kMinusInf, log(where(none, 1.0, total)) + shift);
}

// x [N, K] shifted right by `by` states along K, -inf entering.
Tensor shifted(const Tensor& x, std::int64_t by) {
  const std::int64_t k = x.size(1);
  if (by >= k) return zeros_like(x) + kMinusInf;
  return cat({full({x.size(0), by}, kMinusInf, TensorOptions(x.device()).dtype(x.dtype())),
              x.narrow(1, 0, k - by)},
             1);
}

// The targets as [N, S] (S = max(target_lengths, 1)), padding 0 (left out by the lengths),
// checked against torch's size rules.
Tensor padded_targets(const Tensor& targets, const std::vector<std::int64_t>& lengths,
                      bool batched) {
  const auto n = static_cast<std::int64_t>(lengths.size());
  const std::int64_t longest =
      lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  const std::int64_t width = std::max<std::int64_t>(longest, 1);
  const TensorOptions on = TensorOptions(targets.device()).dtype(DType::int64);
  const Tensor t = targets.to(DType::int64);
  if (targets.dim() == 2) {
    if (targets.size(0) != n || targets.size(1) < longest)
      throw ShapeError("ctc_loss: padded targets " + shape_str(targets.shape()) +
                       " must be [batch_size, >= max target length] = [" + std::to_string(n) +
                       ", >= " + std::to_string(longest) + "] (as torch)");
    return targets.size(1) >= width ? t.narrow(1, 0, width) : cat({t, zeros({n, 1}, on)}, 1);
  }
  if (targets.dim() != 1)
    throw ShapeError("ctc_loss: targets must be [N, S] padded or 1-D concatenated" +
                     std::string(batched ? "" : " ([S] for an unbatched input)") + ", got " +
                     shape_str(targets.shape()));
  // concatenated: the lengths must fit in the targets (checked before the table is sized)
  std::int64_t total = 0;
  for (const std::int64_t k : lengths)
    if (__builtin_add_overflow(total, k, &total) || total > targets.size(0))
      throw ShapeError("ctc_loss: concatenated targets " + shape_str(targets.shape()) +
                       " are shorter than the sum of target_lengths (as torch)");
  if (total == 0) return zeros({n, width}, on);
  // sample b's targets start at the sum of the lengths before it
  std::vector<std::int64_t> where_from(static_cast<std::size_t>(n * width), 0);
  std::int64_t start = 0;
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t j = 0; j < lengths[static_cast<std::size_t>(b)]; ++j)
      where_from[static_cast<std::size_t>(b * width + j)] = start + j;
    start += lengths[static_cast<std::size_t>(b)];
  }
  return index_select(t, 0, tensor(where_from).to(targets.device())).reshape({n, width});
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, CTCLossOptions options) {
  detail::impl_of(log_probs, "ctc_loss");
  detail::impl_of(targets, "ctc_loss");
  if (log_probs.dim() != 2 && log_probs.dim() != 3)
    throw ShapeError("ctc_loss: log_probs must be [T, N, C] or [T, C], got " +
                     shape_str(log_probs.shape()));
  if (!is_floating_point(log_probs.dtype()))
    throw DTypeError("ctc_loss: log_probs must be floating, got " +
                     std::string(dtype_name(log_probs.dtype())));
  if (!is_integer_dtype(targets.dtype()))
    throw DTypeError("ctc_loss: targets must be an integer tensor, got " +
                     std::string(dtype_name(targets.dtype())));
  detail::check_same_device("ctc_loss", {&log_probs, &targets});
  const bool batched = log_probs.dim() == 3;
  const Tensor lp3 = batched ? log_probs : log_probs.unsqueeze(1);
  const std::int64_t steps = lp3.size(0), n = lp3.size(1), classes = lp3.size(2);
  if (steps == 0)
    throw ShapeError("ctc_loss: log_probs " + shape_str(log_probs.shape()) + " has no time step");
  if (options.blank < 0 || options.blank >= classes)
    throw ValueError("ctc_loss: blank must be in label range [0, " + std::to_string(classes) +
                     "), got " + std::to_string(options.blank) + " (as torch)");
  const std::vector<std::int64_t> in_len = lengths_of(input_lengths, "input_lengths", n);
  const std::vector<std::int64_t> tg_len = lengths_of(target_lengths, "target_lengths", n);
  for (std::int64_t b = 0; b < n; ++b) {
    const std::int64_t t = in_len[static_cast<std::size_t>(b)];
    if (t < 0 || t > steps)
      throw ValueError("ctc_loss: Expected input_lengths to have value at most " +
                       std::to_string(steps) + " (and at least 0), but got value " +
                       std::to_string(t) + " (as torch)");
    if (tg_len[static_cast<std::size_t>(b)] < 0)
      throw ValueError("ctc_loss: target_lengths must be non-negative, got " +
                       std::to_string(tg_len[static_cast<std::size_t>(b)]));
  }
  if (!batched && targets.dim() != 1)
    throw ShapeError("ctc_loss: the targets of an unbatched input must be [S], got " +
                     shape_str(targets.shape()));
  const Tensor tg = padded_targets(batched ? targets : targets.unsqueeze(0), tg_len, batched);
  const std::int64_t width = tg.size(1), states = 2 * width + 1;
  const TensorOptions ints = TensorOptions(tg.device()).dtype(DType::int64);
  const Tensor s_len = tensor(tg_len).to(tg.device());
  const Tensor used = lt(arange(width, ints).unsqueeze(0), s_len.unsqueeze(1));
  if (n > 0) {
    const auto [lo, hi] = detail::int_extrema(where(used, tg, zeros_like(tg)));
    if (lo < 0 || hi >= classes)
      throw IndexError("ctc_loss: target " + std::to_string(lo < 0 ? lo : hi) +
                       " is out of the label range [0, " + std::to_string(classes) + ")");
  }
  // The blank-extended targets [N, 2S + 1] (blank, t1, blank, t2, ..., blank) and where a
  // state may be entered from two states back (a label differing from the one before it).
  const Tensor blanks = full({n, width}, static_cast<double>(options.blank), ints);
  const Tensor ext =
      cat({stack({blanks, tg}, 2).reshape({n, 2 * width}), blanks.narrow(1, 0, 1)}, 1);
  // (-1 enters the two states before the first: no class equals it)
  const Tensor two_before = cat({full({n, 2}, -1.0, ints), ext.narrow(1, 0, states - 2)}, 1);
  const Tensor skip = logical_and(ne(ext, static_cast<double>(options.blank)), ne(ext, two_before));
  // 16-bit log-probabilities are combined in float32
  const bool narrow16 = log_probs.dtype() == DType::float16 || log_probs.dtype() == DType::bfloat16;
  const Tensor lp = narrow16 ? lp3.to(DType::float32) : lp3;
  const Tensor emit = gather(lp, 2, ext.unsqueeze(0).expand({steps, n, states}));  // [T, N, K]
  const Tensor first_two = lt(arange(states, ints), 2.0).unsqueeze(0);
  Tensor alpha = where(first_two, emit[0], kMinusInf);
  const Tensor t_len = tensor(in_len).to(tg.device());
  const std::int64_t last_step =
      in_len.empty() ? 0 : *std::max_element(in_len.begin(), in_len.end());
  for (std::int64_t t = 1; t < last_step; ++t) {
    const Tensor two_back = where(skip, shifted(alpha, 2), kMinusInf);
    const Tensor next = log_sum_exp({alpha, shifted(alpha, 1), two_back}) + emit[t];
    alpha = where(gt(t_len, static_cast<double>(t)).unsqueeze(1), next, alpha);
  }
  // log p = logsumexp(alpha[2 S_n], alpha[2 S_n - 1]) (the latter only for S_n > 0)
  const Tensor end = (s_len * 2).unsqueeze(1);
  const Tensor final_blank = gather(alpha, 1, end).squeeze(1);
  const Tensor final_label =
      where(gt(s_len, 0.0), gather(alpha, 1, clamp(end - 1, Number(0), std::nullopt)).squeeze(1),
            kMinusInf);
  Tensor log_p = log_sum_exp({final_blank, final_label});
  // no time step: only the empty target is aligned (probability 1)
  log_p = where(eq(t_len, 0.0), where(eq(s_len, 0.0), zeros_like(log_p), kMinusInf), log_p);
  Tensor loss = -log_p;
  if (options.zero_infinity) {
    loss = where(isinf(loss), 0.0, loss);
  } else {
    // torch's gradient of an infinite loss is NaN at every log-probability of its first T_n
    // steps (what zero_infinity exists for); the composed one would be 0
    const Tensor inf = isinf(loss.detach());
    const Tensor nan_at = logical_and(lt(arange(steps, ints).unsqueeze(1), t_len.unsqueeze(0)),
                                      inf.unsqueeze(0));  // [T, N]
    loss = detail::record("CtcLossBackward", loss.detach(), {loss, lp}, [&] {
      return [inf, nan_at = nan_at.unsqueeze(2), shape = lp.shape()](const Tensor& g) {
        const Tensor zero = zeros(shape, TensorOptions(g.device()).dtype(g.dtype()));
        return detail::Gradients{where(inf, 0.0, g),
                                 where(nan_at, std::numeric_limits<double>::quiet_NaN(), zero)};
      };
    });
  }
  if (narrow16) loss = loss.to(log_probs.dtype());
  switch (options.reduction) {
    case Reduction::none:
      return batched ? loss : loss.squeeze(0);
    case Reduction::sum:
      return loss.sum();
    case Reduction::mean:
      return (loss / clamp(s_len, Number(1), std::nullopt).to(loss.dtype())).mean();
  }
  throw InternalError("ctc_loss: unknown reduction");
}

Tensor CTCLoss::forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                        const Tensor& target_lengths) {
  return ctc_loss(log_probs, targets, input_lengths, target_lengths, o_);
}

Tensor CTCLoss::forward(const Tensor&) {
  throw ValueError(
      "CTCLoss: the loss takes log_probs, targets, input_lengths and target_lengths; call "
      "forward(log_probs, targets, input_lengths, target_lengths)");
}

}  // namespace hetero::nn
