// SPDX-License-Identifier: Apache-2.0
// MultiheadAttention as torch 1.13's F.multi_head_attention_forward (torch/nn/functional.py):
// the projections, the [N * heads, L, head_dim] layout, the masks merged into one additive
// mask, baddbmm of q / sqrt(head_dim) with k^T, softmax, dropout, bmm with v.
#include <hetero/nn/multihead_attention.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/manipulation.hpp>
#include <hetero/nn/dropout.hpp>
#include <hetero/nn/init.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"

namespace hetero::nn {

MultiheadAttention::MultiheadAttention(std::int64_t embed_dim, std::int64_t num_heads,
                                       double dropout, bool bias, bool batch_first,
                                       TensorOptions options)
    : embed_dim_(embed_dim),
      heads_(num_heads),
      dropout_(dropout),
      bias_(bias),
      batch_first_(batch_first) {
  if (embed_dim <= 0 || num_heads <= 0 || embed_dim % num_heads != 0)
    throw ValueError("MultiheadAttention: embed_dim must be divisible by num_heads (got " +
                     std::to_string(embed_dim) + " and " + std::to_string(num_heads) +
                     ", as torch)");
  if (!(dropout >= 0 && dropout <= 1))
    throw ValueError("MultiheadAttention: dropout must be in [0, 1], got " +
                     std::to_string(dropout));
  const TensorOptions o = options.dtype(options.dtype_or(DType::float32));
  init::xavier_uniform_(register_parameter("in_proj_weight", empty({3 * embed_dim, embed_dim}, o)));
  if (bias) register_parameter("in_proj_bias", zeros({3 * embed_dim}, o));
  out_proj_ = std::make_shared<Linear>(embed_dim, embed_dim, bias, o);
  if (bias) init::zeros_(out_proj_->bias());
  register_module("out_proj", out_proj_);
}

Tensor MultiheadAttention::forward(const Tensor& x) { return forward(x, x, x).output; }

MultiheadAttention::Output MultiheadAttention::forward(const Tensor& query_in, const Tensor& key_in,
                                                       const Tensor& value_in,
                                                       const Tensor& key_padding_mask,
                                                       bool need_weights, const Tensor& attn_mask,
                                                       bool average_attn_weights, bool is_causal) {
  const std::int64_t E = embed_dim_, H = heads_, hd = E / H;
  const auto bad = [&](const std::string& what) {
    return ShapeError("MultiheadAttention: " + what + " (query " +
                      detail::shape_str(query_in.shape()) + ", key " +
                      detail::shape_str(key_in.shape()) + ", value " +
                      detail::shape_str(value_in.shape()) + ")");
  };
  if (!query_in.defined() || !key_in.defined() || !value_in.defined())
    throw ShapeError("MultiheadAttention: undefined query, key or value");
  const bool batched = query_in.dim() == 3;
  if ((query_in.dim() != 2 && !batched) || key_in.dim() != query_in.dim() ||
      value_in.dim() != query_in.dim())
    throw bad("expected 3-D (batched) or 2-D (unbatched) query, key and value of one rank");
  // [L, N, E] layout throughout, as torch's.
  const auto layout = [&](const Tensor& t) {
    return !batched ? t.unsqueeze(1) : batch_first_ ? t.transpose(0, 1) : t;
  };
  const Tensor query = layout(query_in), key = layout(key_in), value = layout(value_in);
  const std::int64_t L = query.size(0), N = query.size(1), S = key.size(0);
  if (query.size(2) != E || key.size(2) != E || value.size(2) != E)
    throw bad("expected embed_dim " + std::to_string(E) + " as the last dimension");
  if (key.size(0) != value.size(0) || key.size(1) != N || value.size(1) != N)
    throw bad("key and value must have the same sequence length and batch size as query's");
  // In projection: W [3E, E] split into q, k, v rows.
  const Tensor& w = parameter("in_proj_weight");
  const auto project = [&](const Tensor& x, std::int64_t part) {
    Tensor y = matmul(x, w.narrow(0, part * E, E).t());
    return bias_ ? y + parameter("in_proj_bias").narrow(0, part * E, E) : y;
  };
  // [T, N, E] -> [N * H, T, hd].
  const auto heads = [&](const Tensor& x, std::int64_t T) {
    return x.reshape({T, N * H, hd}).transpose(0, 1);
  };
  Tensor q = heads(project(query, 0), L), k = heads(project(key, 1), S),
         v = heads(project(value, 2), S);
  // One additive mask [N * H or 1, L, S] from attn_mask, is_causal and key_padding_mask.
  const double inf = std::numeric_limits<double>::infinity();
  const auto additive = [&](const Tensor& m) {
    if (m.dtype() == DType::bool_)
      return masked_fill(zeros(m.shape(), TensorOptions(q.device()).dtype(q.dtype())), m, -inf);
    if (!is_floating_point(m.dtype()))
      throw DTypeError("MultiheadAttention: masks must be bool or floating, got " +
                       std::string(dtype_name(m.dtype())));
    return m.to(q.dtype());
  };
  Tensor mask;
  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2 && attn_mask.shape() == Shape{L, S})
      mask = additive(attn_mask).unsqueeze(0);
    else if (attn_mask.dim() == 3 && attn_mask.shape() == Shape{N * H, L, S})
      mask = additive(attn_mask);
    else
      throw bad("attn_mask of shape " + detail::shape_str(attn_mask.shape()) + " is neither [" +
                std::to_string(L) + ", " + std::to_string(S) + "] nor [" + std::to_string(N * H) +
                ", " + std::to_string(L) + ", " + std::to_string(S) + "]");
  } else if (is_causal) {
    const auto flag = TensorOptions(q.device()).dtype(DType::bool_);
    mask = additive(logical_not(tril(ones({L, S}, flag)))).unsqueeze(0);
  }
  if (key_padding_mask.defined()) {
    const Tensor kpm = batched ? key_padding_mask : key_padding_mask.unsqueeze(0);
    if (kpm.shape() != Shape{N, S})
      throw bad("key_padding_mask of shape " + detail::shape_str(key_padding_mask.shape()) +
                " is not [" + (batched ? std::to_string(N) + ", " : std::string()) +
                std::to_string(S) + "]");
    const Tensor padding =
        additive(kpm).reshape({N, 1, 1, S}).expand({N, H, 1, S}).reshape({N * H, 1, S});
    mask = mask.defined() ? mask + padding : padding;
  }
  q = q / std::sqrt(static_cast<double>(hd));
  const Tensor scores = mask.defined() ? baddbmm(mask.expand({N * H, L, S}), q, k.transpose(1, 2))
                                       : bmm(q, k.transpose(1, 2));
  Tensor weights = softmax(scores, -1);
  if (dropout_ > 0) weights = dropout(weights, dropout_, is_training());
  Tensor out = bmm(weights, v).transpose(0, 1).reshape({L * N, E});
  out = out_proj_->forward(out).reshape({L, N, E});
  Output result;
  result.output = !batched ? out.squeeze(1) : batch_first_ ? out.transpose(0, 1) : out;
  if (need_weights) {
    Tensor wts = weights.reshape({N, H, L, S});
    if (average_attn_weights) wts = mean(wts, 1);
    result.weights = batched ? wts : wts.squeeze(0);
  }
  return result;
}

}  // namespace hetero::nn
