// SPDX-License-Identifier: Apache-2.0
#pragma once
// Note [Backward formulas]: the gradient of every differentiable op that is not a row of
// the op tables, one named function each, in one place (as PyTorch's derivatives.yaml); the
// element-wise ops' gradients are their rows' backward columns (<hetero/sdk/op_table.hpp>). An op
// records a node whose closure only captures what its formula needs (saved tensors, shapes, dims)
// and calls it; `g` is the gradient of the op's output, and the result has one gradient per input.
// Formulas that need an op's own layout helpers (max/min over dims, sum/mean over dims) are named
// functions beside the op (extreme_gradient(s), spread).
#include <cstdint>
#include <vector>

#include <hetero/tensor.hpp>

#include "../window_views.hpp"
#include "node.hpp"

namespace hetero::detail::formulas {

/// A cast from dtype `from`: g cast back to `from`.
Gradients cast(const Tensor& g, DType from);
/// y = softmax(x, dim): y (g - sum(g y, dim)).
Gradients softmax(const Tensor& g, const Tensor& y, std::int64_t dim);
/// y = log_softmax(x, dim): g - exp(y) sum(g, dim).
Gradients log_softmax(const Tensor& g, const Tensor& y, std::int64_t dim);
/// sum of all elements of a tensor of `shape`: g broadcast to `shape`.
Gradients sum_all(const Tensor& g, const Shape& shape);
/// mean of all `count` elements of a tensor of `shape`: g / count broadcast to `shape`.
Gradients mean_all(const Tensor& g, const Shape& shape, std::int64_t count);
/// y = ||x|| (2-norm): g x / y, and 0 at x = 0 (the subgradient torch picks).
Gradients norm(const Tensor& g, const Tensor& x, const Tensor& y);
/// cat of inputs of `sizes` along `dim` in `dtypes`: each input's slice of g, in its own
/// dtype (as torch's CatBackward).
Gradients cat(const Tensor& g, std::int64_t dim, const std::vector<std::int64_t>& sizes,
              const std::vector<DType>& dtypes);
/// clamp(x, lo, hi) (either bound may be undefined), as torch 1.13's clamp_backward_min_max:
/// g to x where lo <= x <= hi (so 0 where either is NaN); to lo where x < lo and lo < hi; to
/// hi where x > hi or hi < lo (with lo > hi the result is hi, and so is the gradient). One
/// bound: g to x where x is on its side of it (ties included), to the bound beyond it. Each
/// gradient summed back to its operand's shape.
Gradients clamp(const Tensor& g, const Tensor& x, const Tensor& lo, const Tensor& hi);
/// max_pool2d of geometry `geom` whose arg-max (in each window's KH * KW line) is `index`
/// [N, C, OH, OW]: each window's g on its arg-max element, folded back onto the input
/// (`unbatched`: the input was [C, H, W]).
Gradients max_pool2d(const Tensor& g, const Tensor& index, const WindowGeometry& geom,
                     bool unbatched);
/// avg_pool2d of geometry `geom` with `divisor` (a scalar or [N, C, OH, OW], in the
/// accumulate type): g / divisor spread over each window, folded back, in g's dtype.
Gradients avg_pool2d(const Tensor& g, const Tensor& divisor, const WindowGeometry& geom,
                     bool unbatched);
/// a @ b (torch.matmul's 1-D and batched forms): (g b^T, a^T g) on the 2-D forms, summed
/// over broadcast batch dimensions and reshaped to the inputs.
Gradients matmul(const Tensor& g, const Tensor& a, const Tensor& b);

}  // namespace hetero::detail::formulas
