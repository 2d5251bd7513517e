// SPDX-License-Identifier: Apache-2.0
#pragma once
// conv2d's plan (Note [Convolution plan]) and the pieces its forward (ops_conv.cpp) and its
// backward formula (autograd/formulas.cpp) share.
#include <cstdint>

#include <hetero/conv.hpp>
#include <hetero/sdk/op_codes.hpp>
#include <hetero/tensor.hpp>

#include "window_views.hpp"

namespace hetero::detail {

/// A convolution's geometry: input [N, C, H, W], weight [O, C / groups, KH, KW], output
/// [N, O, OH, OW], and its windows.
struct ConvGeometry {
  std::int64_t n, c, h, w, o, groups, oh, ow;
  Window2d win;
};

// Note [Convolution plan]: how one conv2d call runs is decided once, by plan_conv(), and
// the forward and the one backward ask the plan: its geometry and its route, the backend's
// three convolution kernels (Backend::conv2d, asked once here) or the composition (im2col and
// the backends' GEMM). 16-bit inputs whose backend lacks the kernels are widened to float32
// first (conv2d calls itself), so no plan has that route.
struct ConvPlan {
  ConvGeometry g;
  bool batched;     // input [N, C, H, W] rather than [C, H, W]
  bool by_kernels;  // the backend's kernels, else the composition
};

// What the backward reads, by route: the kernels need the input (for dW) and the weight
// (for dX); the composition the weight as a matrix [O, C/groups KH KW] and the im2col
// matrix (for dW).
struct ConvSaved {
  Tensor x, w, wm, cols;
  Shape wshape;
  bool need_x, need_w, need_b;
};

/// ValueError naming `op` for stride or dilation < 1, padding < 0 or groups < 1 (torch's
/// messages: "non-positive stride is not supported", ...).
void check_conv_args(const char* op, Size2 stride, Size2 padding, Size2 dilation,
                     std::int64_t groups);

/// ShapeError unless `weight` has at least `groups` rows in dimension 0, as torch 1.13's
/// "Given groups=2, expected weight to be at least 2 at dimension 0, but got weight of size
/// [1, 2, 3, 3] instead": torch refuses a convolution without output channels (or a
/// transposed one without input channels), empty batch or not. Every conv and
/// conv_transpose of 1, 2 and 3 dimensions checks it, before the divisibility by groups.
void check_weight_rows(const Tensor& weight, std::int64_t groups);

/// ShapeError naming `op` for a transposed convolution's empty weight (no output channels),
/// which torch 1.13 refuses ("non-empty 2D or 4D weight tensor expected, but got: [4, 0, 3,
/// 3]"; for an empty batch its kernel fails with an IndexError instead).
void check_transposed_weight_not_empty(const char* op, const Tensor& weight);

/// The output of a transposed convolution of an empty batch whose spatial dimensions are
/// empty too, which torch returns ([0, C_out, OH, OW] from input [0, C_in, 0, W]) but no
/// adjoint convolution can compute: zeros of `shape` with the input's dtype and device,
/// recorded as `name` so that backward gives input, weight and bias (where defined) zero
/// gradients, as torch's.
Tensor transposed_empty_batch(const char* name, const Shape& shape, const Tensor& input,
                              const Tensor& weight, const Tensor& bias);

/// Checks conv2d's arguments as torch 1.13 (ShapeError, DTypeError, ValueError with its
/// messages) and decides the route: the backend's three kernels where it has them for the
/// input's dtype and the tensors have elements, else the composition.
ConvPlan plan_conv(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride,
                   Size2 padding, Size2 dilation, std::int64_t groups);

/// A tensor of `shape` with `like`'s dtype and device whose elements all alias one element
/// of `like` (strides 0; a 1-element zeros tensor where `like` is empty): what plan_conv needs
/// of an operand the caller does not have (its shape, dtype and device). Read-only; not
/// recorded by autograd.
Tensor shaped_like(const Tensor& like, const Shape& shape);

/// Per group i: rows i of `a` (or of a^T when `transpose_a`) times rows i of `b` (or b^T
/// with `transpose_b`), joined along dim 0; a and b are split into `groups` equal row blocks.
Tensor grouped_matmul(const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b,
                      std::int64_t groups);

/// One of the backend's convolution kernels (Backend::conv2d) on dense copies of a and b,
/// into a new tensor of `shape`. Only where the plan's route is the kernels.
Tensor conv_kernel(Conv2dOp op, const ConvGeometry& g, const Tensor& a, const Tensor& b,
                   Shape shape);

/// conv2d's input gradient, torch's convolution_backward for the input alone: the adjoint of
/// conv2d(., weight, stride, padding, dilation, groups) applied to `grad_out` [N, O, OH, OW],
/// for an input of `input_shape` [N, C, H, W] (OH, OW must be that input's output size:
/// InternalError otherwise). By the backend's kernel or the composition, as conv2d's plan
/// says; unrecorded (the caller records). conv_transpose2d's forward.
Tensor conv2d_input_grad(const Tensor& grad_out, const Tensor& weight, const Shape& input_shape,
                         Size2 stride, Size2 padding, Size2 dilation, std::int64_t groups);
/// conv2d_input_grad under a plan made for an input of the gradient's shape (plan_conv of
/// shaped_like(...), the weight, no bias): for a caller that planned already.
Tensor conv2d_input_grad(const Tensor& grad_out, const Tensor& weight, const ConvPlan& plan);
/// conv2d's weight gradient for `input` [N, C, H, W] and `grad_out` [N, O, OH, OW], of
/// `weight_shape` [O, C / groups, KH, KW]; as conv2d_input_grad.
Tensor conv2d_weight_grad(const Tensor& input, const Tensor& grad_out, const Shape& weight_shape,
                          Size2 stride, Size2 padding, Size2 dilation, std::int64_t groups);

}  // namespace hetero::detail
