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

#include <hetero/tensor.hpp>

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
/// a @ b (torch.matmul's 1-D and batched forms): (g b^T, a^T g) on the 2-D forms, summed
/// over broadcast batch dimensions and reshaped to the inputs.
Gradients matmul(const Tensor& g, const Tensor& a, const Tensor& b);

}  // namespace hetero::detail::formulas
