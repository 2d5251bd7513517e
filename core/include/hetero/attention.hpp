// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file attention.hpp
/// Scaled dot-product attention (Vaswani et al. 2017), as torch 2's
/// torch.nn.functional.scaled_dot_product_attention, its math path: composed from matmul,
/// masked_fill, softmax and dropout, so it runs on every backend and differentiates through
/// them.
#include <optional>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// softmax(q k^T * scale + bias) v for q [..., L, E], k [..., S, E], v [..., S, Ev] (batch
/// dimensions broadcast, as matmul's), giving [..., L, Ev]; scale defaults to 1 / sqrt(E).
/// bias: -inf above the diagonal with `is_causal` (position i attends to j <= i); from a
/// bool `attn_mask` (broadcastable to [..., L, S]) -inf where it is false (true = may
/// attend, torch's SDPA convention, the opposite of MultiheadAttention's); a floating
/// attn_mask is added. A row with every position masked gives NaN (as torch's math path).
/// dropout_p > 0 drops attention weights (always: pass 0 in eval, as torch says).
/// ValueError for is_causal with an attn_mask (as torch) or dropout_p outside [0, 1];
/// ShapeError for sizes that do not match; DTypeError for non-floating q, k, v, or an
/// attn_mask neither bool nor of q's dtype (as torch 2).
HETERO_API Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                               const Tensor& attn_mask = {}, double dropout_p = 0,
                                               bool is_causal = false,
                                               std::optional<double> scale = std::nullopt);

}  // namespace hetero
