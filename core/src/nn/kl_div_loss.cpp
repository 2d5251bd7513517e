// SPDX-License-Identifier: Apache-2.0
// KLDivLoss: torch 1.13's kl_div (aten/src/ATen/native/Loss.cpp), composed from element-wise
// ops and reductions that run on every backend.
#include <hetero/nn/loss.hpp>

#include <string>

#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"

namespace hetero::nn {

Tensor KLDivLoss::forward(const Tensor& input, const Tensor& target) {
  detail::impl_of(input, "KLDivLoss");
  detail::impl_of(target, "KLDivLoss");
  if (!is_floating_point(input.dtype()) || !is_floating_point(target.dtype()))
    throw DTypeError("KLDivLoss: kl_div: Integral inputs not supported (as torch); input is " +
                     std::string(dtype_name(input.dtype())) + ", target " +
                     std::string(dtype_name(target.dtype())));
  detail::broadcast_shapes("KLDivLoss", input.shape(), target.shape());  // ShapeError
  Tensor pointwise;
  if (options_.log_target) {
    pointwise = exp(target) * (target - input);
  } else {
    // torch's xlogy(t, t) - t * input: t log t is 0 where t is 0. Its gradient for the target
    // is then NaN there (the masked branch's 0 times log 0), as torch's xlogy backward gives.
    pointwise = where(target == 0.0, target, target * log(target)) - target * input;
  }
  switch (options_.reduction) {
    case KLDivReduction::none:
      return pointwise;
    case KLDivReduction::sum:
      return pointwise.sum();
    case KLDivReduction::batchmean:  // torch divides by input.size(0), a 0-d input by 1
      return input.dim() == 0 ? pointwise.sum() : pointwise.sum() / input.size(0);
    default:
      return pointwise.mean();
  }
}

}  // namespace hetero::nn
