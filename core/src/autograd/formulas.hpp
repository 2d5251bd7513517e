// SPDX-License-Identifier: Apache-2.0
#pragma once
// Note [Backward formulas]: the gradient of every differentiable op that is not a row of
// the op tables, one named function each, in one place (as PyTorch's derivatives.yaml); the
// element-wise ops' gradients are their rows' backward columns (<hetero/sdk/op_table.hpp>),
// whose helpers (relu_gradient, extremum_gradient, pow_grad_*) sit beside the table's use in
// ops_elementwise.cpp. An op records its node with detail::record() (Note [Autograd], the one
// way), whose closure only captures what its formula needs (saved tensors, shapes, dims) and
// calls it; `g` is the gradient of the op's output, and the result has one gradient per input
// (an undefined Tensor for an input that takes none). conv2d's formula asks its ConvPlan
// (Note [Convolution plan], conv_plan.hpp), whose route decides between the backend's
// gradient kernels and the GEMM composition's adjoint.
#include <cstdint>
#include <optional>
#include <vector>

#include <hetero/tensor.hpp>

#include "../conv_plan.hpp"
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
/// dtype (as torch's CatBackward); a size of -1 marks an empty 1-D input cat skipped, whose
/// gradient is empty.
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

// ---- views and copies (Tensor's methods)
/// to(device) from `from`: g back on `from` (model parallel: Note [Autograd]).
Gradients to_device(const Tensor& g, const Device& from);
/// clone(): g.
Gradients identity(const Tensor& g);
/// view/reshape of a tensor of shape `from`: g reshaped to it.
Gradients view(const Tensor& g, const Shape& from);
/// transpose(d0, d1): g transposed back.
Gradients transpose(const Tensor& g, std::int64_t d0, std::int64_t d1);
/// unsqueeze(d): g squeezed at d.
Gradients unsqueeze(const Tensor& g, std::int64_t d);
/// squeeze(d) of a size-1 dimension: g unsqueezed at d.
Gradients squeeze(const Tensor& g, std::int64_t d);
/// narrow(d, start, length) of a tensor of shape `from`: g in that range of zeros.
Gradients narrow(const Tensor& g, const Shape& from, std::int64_t d, std::int64_t start,
                 std::int64_t length);
/// operator[](index) (select along dim 0) of a tensor of shape `from`: g at that index of zeros.
Gradients select(const Tensor& g, const Shape& from, std::int64_t index);
/// permute(dims) whose inverse permutation is `inverse`: g permuted back.
Gradients permute(const Tensor& g, const std::vector<std::int64_t>& inverse);
/// expand of a tensor of shape `from`: g summed back to it (unbroadcast).
Gradients expand(const Tensor& g, const Shape& from);

// ---- reductions
/// sum over `dim` of a tensor of shape `in_shape` (`keepdim` or not): g broadcast back.
Gradients sum_dim(const Tensor& g, const Shape& in_shape, std::int64_t dim, bool keepdim);
/// mean over `dim`: g / the dimension's size, broadcast back.
Gradients mean_dim(const Tensor& g, const Shape& in_shape, std::int64_t dim, bool keepdim);
/// y = max(x) or min(x) over all elements: g to the elements equal to y, split evenly among
/// ties, and a NaN y split among the NaNs (torch's evenly_distribute_backward; amax and amin,
/// whose NaN gradient is NaN everywhere, have their own). The mask is x == y, exact at an
/// infinite extreme too.
Gradients extreme_all(const Tensor& g, const Tensor& x, const Tensor& y);
/// y = max(x, dim) or min(x, dim) (`keepdim` or not): g to the element `index` selects in
/// each line ([..., 1, ...], the first maximum or minimum, a NaN first: argmax / argmin with
/// keepdim), 0 elsewhere, as torch's value_selecting_reduction_backward: a tie's gradient
/// is not shared.
Gradients selected_dim(const Tensor& g, const Tensor& x, const Tensor& index, std::int64_t dim,
                       bool keepdim);
/// y = prod(x) (`dim` absent: over every element) or prod(x, dim, keepdim), as torch's
/// prod_backward: d/dx_i is y / x_i where no element of the line is 0; where one is, the
/// product of the others at the zero and 0 elsewhere; where two or more are, 0.
Gradients prod(const Tensor& g, const Tensor& x, const Tensor& y, std::optional<std::int64_t> dim,
               bool keepdim);
/// var with `centred` = x - mean and factor = 2 / (n - correction), as torch's var_backward:
/// factor g (x - mean), g with the reduced dimensions kept (as size 1).
Gradients var(const Tensor& g, const Tensor& centred, double factor);
/// y = sqrt(v) inside std: g / (2 y), and 0 where y = 0 (torch's std_backward), not NaN.
Gradients sqrt_at_zero(const Tensor& g, const Tensor& y);

// ---- activations (activations.hpp; torch 1.13's backward kernels, 16-bit in float32)
/// sqrt(2 / pi) and 0.044715, the tanh approximation's constants (torch's kBeta, kKappa).
inline constexpr double kGeluBeta = 0.7978845608028654;
inline constexpr double kGeluKappa = 0.044715;
/// gelu: g (Φ(x) + x φ(x)); with `tanh_form`, g (0.5 (1 + t) + 0.5 x (1 - t^2) beta
/// (1 + 3 kappa x^2)), t = tanh(beta (x + kappa x^3)).
Gradients gelu(const Tensor& g, const Tensor& x, bool tanh_form);
/// silu: g s (1 + x (1 - s)), s = 1 / (1 + exp(-x)).
Gradients silu(const Tensor& g, const Tensor& x);
/// leaky_relu: g where x > 0, else g negative_slope (selected).
Gradients leaky_relu(const Tensor& g, const Tensor& x, double negative_slope);
/// elu, selu and celu (torch's elu_backward with its coefficients): g input_scale negcoef
/// exp(input_scale x) where x <= 0, else g poscoef (selected; factors of 1 not multiplied).
Gradients elu(const Tensor& g, const Tensor& x, double negcoef, double poscoef, double input_scale);
/// mish: g (t + x s (1 - t^2)), t = tanh(log1p(exp(x))), s = 1 / (1 + exp(-x)).
Gradients mish(const Tensor& g, const Tensor& x);
/// logsigmoid: g (1 - z / (1 + z)) where x < 0, else g z / (1 + z), z = exp(-|x|).
Gradients logsigmoid(const Tensor& g, const Tensor& x);
/// hardtanh: 0 where x <= min_val or x >= max_val, else g (NaN x passes g, as torch's).
Gradients hardtanh(const Tensor& g, const Tensor& x, double min_val, double max_val);
/// hardsigmoid: g / 6 where -3 < x < 3, else 0.
Gradients hardsigmoid(const Tensor& g, const Tensor& x);
/// hardswish: 0 where x < -3, g (x / 3 + 0.5) where x <= 3, else g (NaN x passes g).
Gradients hardswish(const Tensor& g, const Tensor& x);
/// softplus: g where beta x > threshold, else g z / (z + 1), z = exp(beta x).
Gradients softplus(const Tensor& g, const Tensor& x, double beta, double threshold);

// ---- convolution
/// conv2d planned as `plan` ({dX, dW, db}; each only where `saved` says it is needed): by
/// the backend's gradient kernels on the kernels route; on the composition's, dW = g cols^T
/// and dX = fold(W^T g), the adjoint of im2col (Note [Convolution as GEMM]); db = g summed
/// over N, OH, OW.
Gradients conv2d(const Tensor& g, const ConvPlan& plan, const ConvSaved& saved);

// ---- indexing
/// gather(input, d, index) (and index_select) of an input of shape `shape`: g scattered
/// back with scatter_add into zeros.
Gradients gather(const Tensor& g, const Shape& shape, std::int64_t d, const Tensor& index);
/// scatter_add(input, d, index, src), src of shape `src_shape`: g to input; to src, g
/// gathered at index, zero where src reaches beyond index.
Gradients scatter_add(const Tensor& g, const Shape& src_shape, std::int64_t d, const Tensor& index);
/// scatter_add with an empty index: g to input, zeros of `src_shape` to src.
Gradients scatter_add_nothing(const Tensor& g, const Shape& src_shape);
/// embedding of a weight of shape `shape` at the rows `index` [L, width] (expanded): g's
/// rows summed into theirs; the row `padding_idx` (when >= 0) takes none (as torch).
Gradients embedding(const Tensor& g, const Shape& shape, const Tensor& index,
                    std::int64_t padding_idx);

}  // namespace hetero::detail::formulas
