// SPDX-License-Identifier: Apache-2.0
#include <hetero/attention.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/manipulation.hpp>
#include <hetero/nn/dropout.hpp>
#include <hetero/ops.hpp>

#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  const detail::prof::Scope op_scope("scaled_dot_product_attention", q);
  for (const Tensor* t : {&q, &k, &v}) {
    detail::impl_of(*t, "scaled_dot_product_attention");
    if (t->dim() < 2)
      throw ShapeError("scaled_dot_product_attention: q, k and v need at least 2 dimensions, got " +
                       detail::shape_str(t->shape()));
    if (!is_floating_point(t->dtype()))
      throw DTypeError("scaled_dot_product_attention: expected floating q, k, v, got " +
                       std::string(dtype_name(t->dtype())));
  }
  // As torch 2's validate_sdpa_input: a bool mask, or a floating one of q's dtype (an int64
  // or float64 mask added to float32 scores would promote them).
  if (attn_mask.defined() && attn_mask.dtype() != DType::bool_ && attn_mask.dtype() != q.dtype())
    throw DTypeError("scaled_dot_product_attention: expected attn_mask of dtype bool or of q's " +
                     std::string(dtype_name(q.dtype())) + ", got " +
                     std::string(dtype_name(attn_mask.dtype())) + " (as torch)");
  if (is_causal && attn_mask.defined())
    throw ValueError(
        "scaled_dot_product_attention: is_causal with an attn_mask: give one of them (as torch)");
  if (!(dropout_p >= 0 && dropout_p <= 1))
    throw ValueError("scaled_dot_product_attention: dropout_p must be in [0, 1], got " +
                     std::to_string(dropout_p));
  if (k.size(-1) != q.size(-1) || v.size(-2) != k.size(-2))
    throw ShapeError("scaled_dot_product_attention: q " + detail::shape_str(q.shape()) + ", k " +
                     detail::shape_str(k.shape()) + " and v " + detail::shape_str(v.shape()) +
                     " do not fit ([..., L, E], [..., S, E], [..., S, Ev])");
  const double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  Tensor scores = matmul(q, k.transpose(-2, -1)) * s;
  const double inf = std::numeric_limits<double>::infinity();
  if (is_causal) {
    const auto flag = TensorOptions(q.device()).dtype(DType::bool_);
    scores = masked_fill(scores, logical_not(tril(ones({q.size(-2), k.size(-2)}, flag))), -inf);
  } else if (attn_mask.defined()) {
    scores = attn_mask.dtype() == DType::bool_ ? masked_fill(scores, logical_not(attn_mask), -inf)
                                               : scores + attn_mask;
  }
  Tensor weights = softmax(scores, -1);
  if (dropout_p > 0) weights = nn::dropout(weights, dropout_p, true);
  return matmul(weights, v);
}

}  // namespace hetero
