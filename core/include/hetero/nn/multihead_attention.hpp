// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/multihead_attention.hpp
/// hetero::nn::MultiheadAttention — multi-head attention (Vaswani et al. 2017), as torch
/// 1.13's torch.nn.MultiheadAttention with kdim = vdim = embed_dim: one input projection
/// in_proj_weight [3E, E] (+ in_proj_bias [3E]) split into q, k, v, num_heads heads of
/// E / num_heads, softmax(q k^T / sqrt(E / heads) + mask) v per head (dropout on the
/// weights in training), concatenated and projected by out_proj (a Linear E -> E). The
/// state_dict names are torch's: in_proj_weight, in_proj_bias, out_proj.weight,
/// out_proj.bias. Initialised as torch's: xavier_uniform_ in_proj_weight, zero biases,
/// out_proj.weight as Linear's.
#include <cstdint>
#include <memory>

#include <hetero/nn/linear.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// Multi-head attention, as torch.nn.MultiheadAttention (see the file comment).
class HETERO_API MultiheadAttention : public Module {
 public:
  /// ValueError unless embed_dim > 0 and num_heads > 0 divides it (torch's "embed_dim must
  /// be divisible by num_heads"), or for dropout outside [0, 1].
  MultiheadAttention(std::int64_t embed_dim, std::int64_t num_heads, double dropout = 0,
                     bool bias = true, bool batch_first = false, TensorOptions options = {});

  /// The attention output and its weights.
  struct Output {
    Tensor output;   ///< [L, N, E] ([N, L, E] with batch_first; [L, E] unbatched)
    Tensor weights;  ///< [N, L, S] averaged over heads, or [N, heads, L, S]; undefined
                     ///< without need_weights ([L, S] / [heads, L, S] unbatched)
  };
  /// query [L, N, E], key and value [S, N, E] ([N, L, E] / [N, S, E] with batch_first;
  /// [L, E] / [S, E] unbatched). key_padding_mask [N, S] ([S] unbatched): bool true (or a
  /// floating -inf) where a key is padding; attn_mask [L, S] or [N * heads, L, S]: bool true
  /// where a position may NOT attend (torch's MultiheadAttention convention), or floating,
  /// added to the scores; is_causal builds the causal [L, S] mask when attn_mask is absent.
  /// ShapeError for shapes that do not fit (naming them).
  Output forward(const Tensor& query, const Tensor& key, const Tensor& value,
                 const Tensor& key_padding_mask = {}, bool need_weights = true,
                 const Tensor& attn_mask = {}, bool average_attn_weights = true,
                 bool is_causal = false);
  /// Self-attention of x with no mask: forward(x, x, x).output.
  Tensor forward(const Tensor& x) override;
  /// The model width E.
  std::int64_t embed_dim() const noexcept { return embed_dim_; }
  /// The number of heads (E / num_heads per head).
  std::int64_t num_heads() const noexcept { return heads_; }

 private:
  std::int64_t embed_dim_, heads_;
  double dropout_;
  bool bias_, batch_first_;
  std::shared_ptr<Linear> out_proj_;
};

}  // namespace hetero::nn
