// SPDX-License-Identifier: Apache-2.0
// conv2d as torch.nn.functional.conv2d, by im2col over a strided window view and the
// backends' GEMM (Note [Convolution as GEMM], window_views.hpp). Checks and their messages
// follow torch 1.13's (aten/src/ATen/native/Convolution.cpp).
#include <string>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/conv.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "autograd/node.hpp"
#include "autograd/record.hpp"
#include "op_helpers.hpp"
#include "window_views.hpp"

namespace hetero {
namespace {

std::string pair_str(Size2 p) {
  return "[" + std::to_string(p.h) + ", " + std::to_string(p.w) + "]";
}

struct ConvGeometry {
  std::int64_t n, c, h, w, o, groups, oh, ow;
  detail::Window2d win;
};

ConvGeometry check_conv(const Tensor& x, const Tensor& weight, const Tensor& bias, Size2 stride,
                        Size2 padding, Size2 dilation, std::int64_t groups) {
  detail::impl_of(x, "conv2d");
  detail::impl_of(weight, "conv2d");
  if (bias.defined())
    detail::check_same_device("conv2d", {&x, &weight, &bias});
  else
    detail::check_same_device("conv2d", {&x, &weight});
  if (x.dim() != 3 && x.dim() != 4)
    throw ShapeError(
        "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of "
        "size: " +
        detail::shape_str(x.shape()));
  if (weight.dim() != 4)
    throw ShapeError(
        "conv2d: expected a 4-D weight [out_channels, in_channels / groups, kH, kW], "
        "got size " +
        detail::shape_str(weight.shape()));
  if (!is_floating_point(x.dtype()))
    throw DTypeError(std::string("conv2d: expected a floating input, got ") +
                     std::string(dtype_name(x.dtype())) +
                     " (torch runs integer convolutions on its cpu; hetero does not)");
  if (weight.dtype() != x.dtype() || (bias.defined() && bias.dtype() != x.dtype()))
    throw DTypeError(std::string("conv2d: input type (") + std::string(dtype_name(x.dtype())) +
                     "), weight type (" + std::string(dtype_name(weight.dtype())) + ")" +
                     (bias.defined() ? std::string(" and bias type (") +
                                           std::string(dtype_name(bias.dtype())) + ")"
                                     : "") +
                     " should be the same (as torch)");
  if (stride.h < 1 || stride.w < 1)
    throw ValueError("conv2d: non-positive stride is not supported, got " + pair_str(stride));
  if (dilation.h < 1 || dilation.w < 1)
    throw ValueError("conv2d: dilation should be greater than zero, got " + pair_str(dilation));
  if (padding.h < 0 || padding.w < 0)
    throw ValueError("conv2d: negative padding is not supported, got " + pair_str(padding));
  if (groups < 1)
    throw ValueError("conv2d: non-positive groups is not supported, got " + std::to_string(groups));
  const Tensor x4 = x.dim() == 3 ? x.unsqueeze(0) : x;
  ConvGeometry g{x4.size(0), x4.size(1), x4.size(2), x4.size(3), weight.size(0), groups, 0, 0, {}};
  if (g.o % groups != 0)
    throw ValueError("conv2d: out_channels (" + std::to_string(g.o) +
                     ") must be divisible by groups (" + std::to_string(groups) + ")");
  if (weight.size(1) * groups != g.c)
    throw ShapeError("Given groups=" + std::to_string(groups) + ", weight of size " +
                     detail::shape_str(weight.shape()) + ", expected input" +
                     detail::shape_str(x4.shape()) + " to have " +
                     std::to_string(weight.size(1) * groups) + " channels, but got " +
                     std::to_string(g.c) + " channels instead");
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != g.o))
    throw ShapeError("Given weight of size " + detail::shape_str(weight.shape()) +
                     ", expected bias to be 1-dimensional with " + std::to_string(g.o) +
                     " elements, but got bias of size " + detail::shape_str(bias.shape()) +
                     " instead");
  g.win = {weight.size(2), weight.size(3), stride.h,   stride.w,
           padding.h,      padding.w,      dilation.h, dilation.w};
  const std::int64_t hp = g.h + 2 * padding.h, wp = g.w + 2 * padding.w;
  const std::int64_t ekh = dilation.h * (g.win.kh - 1) + 1, ekw = dilation.w * (g.win.kw - 1) + 1;
  if (hp < ekh || wp < ekw)
    throw ShapeError("Calculated padded input size per channel: (" + std::to_string(hp) + " x " +
                     std::to_string(wp) + "). Kernel size: (" + std::to_string(ekh) + " x " +
                     std::to_string(ekw) +
                     "). Kernel size can't be greater than actual input size");
  g.oh = (hp - ekh) / stride.h + 1;
  g.ow = (wp - ekw) / stride.w + 1;
  return g;
}

// The im2col matrix of x4: [N, C * KH * KW, OH * OW], dense.
Tensor im2col(const Tensor& x4, const ConvGeometry& g) {
  const detail::Window2d& w = g.win;
  const Tensor xp = (w.ph || w.pw) ? detail::pad2d(x4, w.ph, w.ph, w.pw, w.pw, 0.0) : x4;
  return detail::window_view(xp, w, g.oh, g.ow)
      .contiguous()
      .view({g.n, g.c * w.kh * w.kw, g.oh * g.ow});
}

// Per group: a [rows_a, ...] weight block times the matching rows of `cols`, joined along dim 1.
Tensor grouped_matmul(const Tensor& wm, const Tensor& cols, std::int64_t groups,
                      bool weight_transposed) {
  if (groups == 1) return matmul(weight_transposed ? wm.t() : wm, cols);
  const std::int64_t wrows = wm.size(0) / groups, crows = cols.size(1) / groups;
  std::vector<Tensor> parts;
  for (std::int64_t i = 0; i < groups; ++i) {
    const Tensor wg = wm.narrow(0, i * wrows, wrows);
    parts.push_back(matmul(weight_transposed ? wg.t() : wg, cols.narrow(1, i * crows, crows)));
  }
  return cat(parts, 1);
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride,
              Size2 padding, Size2 dilation, std::int64_t groups) {
  const ConvGeometry g = check_conv(input, weight, bias, stride, padding, dilation, groups);
  const bool batched = input.dim() == 4;
  const std::int64_t k = g.c / groups * g.win.kh * g.win.kw;
  Tensor out, cols, wm;
  {
    NoGradGuard no_grad;
    const Tensor x4 = batched ? input : input.unsqueeze(0);
    cols = im2col(x4, g);
    wm = weight.reshape({g.o, k});
    Tensor y = grouped_matmul(wm, cols, groups, false);  // [N, O, OH * OW]
    if (bias.defined()) y = y + bias.reshape({1, g.o, 1});
    y = y.view({g.n, g.o, g.oh, g.ow});
    out = batched ? y : y.squeeze(0);
  }
  const bool need_x = detail::needs_grad({&input}), need_w = detail::needs_grad({&weight}),
             need_b = bias.defined() && detail::needs_grad({&bias});
  if (!need_x && !need_w && !need_b) return out;
  detail::SavedTensors saved;
  detail::BackwardFn fn = [g, k, batched, need_x, need_w, need_b, wm = detail::saved(wm),
                           cols = need_w ? cols : Tensor(),
                           wshape = weight.shape()](const Tensor& grad) {
    const Tensor g3 = grad.reshape({g.n, g.o, g.oh * g.ow});
    detail::Gradients grads(3);
    if (need_b) grads[2] = g3.sum(2).sum(0);
    if (need_w) {
      // dW = sum over the batch of g3 cols^T, per group.
      const std::int64_t og = g.o / g.groups;
      std::vector<Tensor> parts;
      for (std::int64_t i = 0; i < g.groups; ++i)
        parts.push_back(
            matmul(g3.narrow(1, i * og, og), cols.narrow(1, i * k, k).transpose(1, 2)).sum(0));
      grads[1] = (g.groups == 1 ? parts[0] : cat(parts, 0)).reshape(wshape);
    }
    if (need_x) {
      // dX = fold(W^T g3): the adjoint of im2col, then the padding cut off.
      const detail::Window2d& w = g.win;
      const Tensor dcols =
          grouped_matmul(wm, g3, g.groups, true).view({g.n, g.c, w.kh, w.kw, g.oh, g.ow});
      Tensor dx = detail::fold_windows(dcols, w, g.h + 2 * w.ph, g.w + 2 * w.pw);
      if (w.ph || w.pw) dx = dx.narrow(2, w.ph, g.h).narrow(3, w.pw, g.w).contiguous();
      grads[0] = batched ? dx : dx.squeeze(0);
    }
    return grads;
  };
  // The weight was read through `wm` (a view or a copy): its version is what backward checks.
  detail::saved(weight);
  detail::attach(out, "ConvolutionBackward", {input, weight, bias}, std::move(fn), saved.take());
  return out;
}

}  // namespace hetero
