// SPDX-License-Identifier: Apache-2.0
// conv2d as torch.nn.functional.conv2d, by im2col over a strided window view and the
// backends' GEMM (Note [Convolution as GEMM], window_views.hpp). Checks and their messages
// follow torch 1.13's (aten/src/ATen/native/Convolution.cpp).
#include <optional>
#include <string>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/conv.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/node.hpp"
#include "autograd/record.hpp"
#include "backend_calls.hpp"
#include "conv_plan.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "window_views.hpp"

namespace hetero {
using detail::ConvGeometry;
using detail::ConvPlan;
using detail::ConvSaved;
namespace {

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
  detail::check_conv_args("conv2d", stride, padding, dilation, groups);
  detail::check_weight_rows(weight, groups);
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
  if (weight.size(2) < 1 || weight.size(3) < 1)  // issue #44: hit an internal assertion
    throw ShapeError("conv2d: kernel size should be greater than zero, but got kernel_height: " +
                     std::to_string(weight.size(2)) +
                     " kernel_width: " + std::to_string(weight.size(3)) + " (as torch)");
  if (g.n > 0 && g.c > 0 && (g.h == 0 || g.w == 0))  // padding would make zeros of nothing
    throw ShapeError(
        "conv2d: only zero batch or zero channel inputs are supported, but got "
        "input shape: " +
        detail::shape_str(x4.shape()) + " (as torch)");
  g.win = {weight.size(2), weight.size(3), stride.h,   stride.w,
           padding.h,      padding.w,      dilation.h, dilation.w};
  // Issue #44: padding or dilation near 2^62 overflowed these (a crash or garbage).
  const std::int64_t hp = detail::checked_geometry("conv2d", {g.h, padding.h, padding.h}, {});
  const std::int64_t wp = detail::checked_geometry("conv2d", {g.w, padding.w, padding.w}, {});
  const std::int64_t ekh = detail::checked_geometry("conv2d", {1}, {{dilation.h, g.win.kh - 1}});
  const std::int64_t ekw = detail::checked_geometry("conv2d", {1}, {{dilation.w, g.win.kw - 1}});
  if (hp < ekh || wp < ekw)
    throw ShapeError("Calculated padded input size per channel: (" + std::to_string(hp) + " x " +
                     std::to_string(wp) + "). Kernel size: (" + std::to_string(ekh) + " x " +
                     std::to_string(ekw) +
                     "). Kernel size can't be greater than actual input size");
  g.oh = (hp - ekh) / stride.h + 1;
  g.ow = (wp - ekw) / stride.w + 1;
  // The output and the im2col matrix must be indexable.
  (void)detail::checked_numel({g.n, g.o, g.oh, g.ow});
  (void)detail::checked_numel({g.c, g.win.kh, g.win.kw, g.n, g.oh, g.ow});
  return g;
}

// The im2col matrix of x4, channel-major: [C * KH * KW, N * OH * OW], dense, so that the whole
// batch is one GEMM per group (W [O, C KH KW] times it), as the GEMM route of cuDNN and
// PyTorch's slow_conv2d; its rows of one group are a contiguous block.
Tensor im2col(const Tensor& x4, const ConvGeometry& g) {
  const detail::Window2d& w = g.win;
  const Tensor xp = (w.ph || w.pw) ? detail::pad2d(x4, w.ph, w.ph, w.pw, w.pw, 0.0) : x4;
  const Tensor win = detail::window_view(xp, w, g.oh, g.ow);  // [N, C, KH, KW, OH, OW]
  const auto& s = win.strides();
  return detail::strided_view(win, {g.c, w.kh, w.kw, g.n, g.oh, g.ow},
                              {s[1], s[2], s[3], s[0], s[4], s[5]}, win.impl()->offset)
      .contiguous()
      .view({g.c * w.kh * w.kw, g.n * g.oh * g.ow});
}

// The backend's convolution kernels (Backend::conv2d, interface minor 8), where it has all
// three for the dtype and the tensors have elements (the composition handles the empty cases).
bool backend_convolves(const Tensor& x4, const ConvGeometry& g) {
  const detail::Storage& on = detail::storage_of(x4);
  const DType t = x4.dtype();
  return g.n > 0 && g.c > 0 && g.o > 0 && g.oh > 0 && g.ow > 0 && g.h > 0 && g.w > 0 &&
         detail::calls::has_kernel(on, Conv2dOp::forward, t) &&
         detail::calls::has_kernel(on, Conv2dOp::backward_input, t) &&
         detail::calls::has_kernel(on, Conv2dOp::backward_weight, t);
}

Conv2dArgs kernel_args(const ConvGeometry& g) {
  const detail::Window2d& w = g.win;
  return {g.n,  g.c,  g.h,  g.w,  g.o,  g.groups, w.kh, w.kw,
          w.sh, w.sw, w.ph, w.pw, w.dh, w.dw,     g.oh, g.ow};
}

}  // namespace

namespace detail {

void check_conv_args(const char* op, Size2 stride, Size2 padding, Size2 dilation,
                     std::int64_t groups) {
  const std::string who(op);
  if (stride.h < 1 || stride.w < 1)
    throw ValueError(who + ": non-positive stride is not supported, got " + size2_str(stride));
  if (dilation.h < 1 || dilation.w < 1)
    throw ValueError(who + ": dilation should be greater than zero, got " + size2_str(dilation));
  if (padding.h < 0 || padding.w < 0)
    throw ValueError(who + ": negative padding is not supported, got " + size2_str(padding));
  if (groups < 1)
    throw ValueError(who + ": non-positive groups is not supported, got " + std::to_string(groups));
}

void check_weight_rows(const Tensor& weight, std::int64_t groups) {
  if (weight.size(0) < groups)
    throw ShapeError("Given groups=" + std::to_string(groups) +
                     ", expected weight to be at least " + std::to_string(groups) +
                     " at dimension 0, but got weight of size " + shape_str(weight.shape()) +
                     " instead (as torch)");
}

void check_transposed_weight_not_empty(const char* op, const Tensor& weight) {
  if (weight.numel() == 0)
    throw ShapeError(std::string(op) + ": expected a non-empty weight, but got weight of size " +
                     shape_str(weight.shape()) + " (no output channels; torch: \"non-empty " +
                     "weight tensor expected\")");
}

// Per group i: rows i of `a` (or of a^T when `transpose_a`) times rows i of `b` (or b^T with
// `transpose_b`), joined along dim 0; a and b are split into `groups` equal row blocks.
Tensor grouped_matmul(const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b,
                      std::int64_t groups) {
  const auto op = [](const Tensor& t, bool tr) { return tr ? t.t() : t; };
  if (groups == 1) return matmul(op(a, transpose_a), op(b, transpose_b));
  const std::int64_t ra = a.size(0) / groups, rb = b.size(0) / groups;
  std::vector<Tensor> parts;
  for (std::int64_t i = 0; i < groups; ++i)
    parts.push_back(
        matmul(op(a.narrow(0, i * ra, ra), transpose_a), op(b.narrow(0, i * rb, rb), transpose_b)));
  return cat(parts, 0);
}

// One convolution kernel on dense copies of a and b, into a new tensor of `shape`.
Tensor conv_kernel(Conv2dOp op, const ConvGeometry& g, const Tensor& a, const Tensor& b,
                   Shape shape) {
  const Tensor da = a.contiguous(), db = b.contiguous();
  Tensor out = detail::new_tensor_like(std::move(shape), da.dtype(), da);
  detail::calls::conv2d(detail::storage_of(out), op, kernel_args(g), detail::view_of(da),
                        detail::view_of(db), detail::view_of(out));
  return out;
}

// The forward with its bias added by the backend's kernel (Backend::conv2d_bias): no second
// pass over the output. Empty where the backend has no such kernel for the dtype.
std::optional<Tensor> conv_bias_kernel(const ConvGeometry& g, const Tensor& x4, const Tensor& w,
                                       const Tensor& bias) {
  const Storage& on = storage_of(x4);
  if (!calls::has_kernel(on, Conv2dOp::forward_bias, x4.dtype())) return std::nullopt;
  const Tensor dx = x4.contiguous(), dw = w.contiguous(), db = bias.contiguous();
  Tensor out = new_tensor_like({g.n, g.o, g.oh, g.ow}, dx.dtype(), dx);
  calls::conv2d_bias(storage_of(out), kernel_args(g), view_of(dx), view_of(dw), view_of(db),
                     view_of(out));
  return out;
}

ConvPlan plan_conv(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride,
                   Size2 padding, Size2 dilation, std::int64_t groups) {
  ConvPlan p{check_conv(input, weight, bias, stride, padding, dilation, groups), input.dim() == 4,
             false};
  p.by_kernels = backend_convolves(input, p.g);
  return p;
}

Tensor shaped_like(const Tensor& like, const Shape& shape) {
  if (like.numel() == 0)
    return zeros({1}, TensorOptions(like.device()).dtype(like.dtype())).expand(shape);
  return strided_view(like, shape, std::vector<std::int64_t>(shape.size(), 0), like.impl()->offset);
}

namespace {

void check_output_size(const ConvGeometry& g, const Tensor& grad_out, const char* who) {
  if (grad_out.dim() != 4 || grad_out.size(0) != g.n || grad_out.size(1) != g.o ||
      grad_out.size(2) != g.oh || grad_out.size(3) != g.ow)
    throw InternalError(std::string(who) + ": the output gradient " + shape_str(grad_out.shape()) +
                        " does not match the convolution's output " +
                        shape_str({g.n, g.o, g.oh, g.ow}));
}

}  // namespace

Tensor conv2d_input_grad(const Tensor& grad_out, const Tensor& weight, const Shape& input_shape,
                         Size2 stride, Size2 padding, Size2 dilation, std::int64_t groups) {
  return conv2d_input_grad(
      grad_out, weight,
      plan_conv(shaped_like(grad_out, input_shape), weight, {}, stride, padding, dilation, groups));
}

Tensor conv2d_input_grad(const Tensor& grad_out, const Tensor& weight, const ConvPlan& p) {
  const ConvGeometry& g = p.g;
  const std::int64_t groups = g.groups;
  check_output_size(g, grad_out, "conv2d_input_grad");
  ConvSaved s;
  s.need_x = true;
  s.need_w = s.need_b = false;
  s.wshape = weight.shape();
  if (p.by_kernels)
    s.w = weight;
  else
    s.wm = weight.reshape({g.o, g.c / groups * g.win.kh * g.win.kw});
  return formulas::conv2d(grad_out, p, s)[0];
}

Tensor conv2d_weight_grad(const Tensor& input, const Tensor& grad_out, const Shape& weight_shape,
                          Size2 stride, Size2 padding, Size2 dilation, std::int64_t groups) {
  const ConvPlan p =
      plan_conv(input, shaped_like(input, weight_shape), {}, stride, padding, dilation, groups);
  check_output_size(p.g, grad_out, "conv2d_weight_grad");
  ConvSaved s;
  s.need_w = true;
  s.need_x = s.need_b = false;
  s.wshape = weight_shape;
  if (p.by_kernels)
    s.x = input;
  else
    s.cols = im2col(input, p.g);
  return formulas::conv2d(grad_out, p, s)[1];
}

}  // namespace detail

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride,
              Size2 padding, Size2 dilation, std::int64_t groups) {
  const detail::prof::Scope op_scope("conv2d", input);
  const ConvPlan p = detail::plan_conv(input, weight, bias, stride, padding, dilation, groups);
  const ConvGeometry& g = p.g;
  if (!p.by_kernels && (input.dtype() == DType::float16 || input.dtype() == DType::bfloat16)) {
    // As torch's 16-bit convolution: accumulated in float32 with the bias added before the
    // one rounding (issue #44: the GEMM's 16-bit result was rounded, then the bias added
    // and rounded again). The casts carry the gradients back to 16 bits.
    return conv2d(input.to(DType::float32), weight.to(DType::float32),
                  bias.defined() ? bias.to(DType::float32) : Tensor(), stride, padding, dilation,
                  groups)
        .to(input.dtype());
  }
  Tensor out, cols, wm;
  {
    NoGradGuard no_grad;
    const Tensor x4 = p.batched ? input : input.unsqueeze(0);
    if (p.by_kernels) {
      if (auto fused =
              bias.defined() ? detail::conv_bias_kernel(g, x4, weight, bias) : std::nullopt) {
        out = std::move(*fused);
      } else {
        out = detail::conv_kernel(Conv2dOp::forward, g, x4, weight, {g.n, g.o, g.oh, g.ow});
        // In place: the kernel's fresh result, not yet seen by autograd or anyone (a new
        // tensor would stream the output through memory once more).
        if (bias.defined())
          detail::binary_into(BinaryOp::add, out, bias.reshape({1, g.o, 1, 1}), out);
      }
      if (!p.batched) out = out.squeeze(0);
    } else {
      cols = im2col(x4, g);  // [C KH KW, N OH OW]
      wm = weight.reshape({g.o, g.c / groups * g.win.kh * g.win.kw});
      // [O, N OH OW] seen as [N, O, OH OW]; the bias add (or a copy) writes it out dense.
      const Tensor y = detail::grouped_matmul(wm, false, cols, false, groups)
                           .view({g.o, g.n, g.oh * g.ow})
                           .transpose(0, 1);
      const Tensor dense = bias.defined() ? y + bias.reshape({1, g.o, 1}) : y.contiguous();
      out = dense.view(p.batched ? Shape{g.n, g.o, g.oh, g.ow} : Shape{g.o, g.oh, g.ow});
    }
  }
  return detail::record("ConvolutionBackward", out, {input, weight, bias}, [&] {
    ConvSaved s;
    s.need_x = detail::needs_grad({&input});
    s.need_w = detail::needs_grad({&weight});
    s.need_b = bias.defined() && detail::needs_grad({&bias});
    s.wshape = weight.shape();
    if (p.by_kernels) {
      if (s.need_w) s.x = detail::saved(input);
      if (s.need_x) s.w = detail::saved(weight);
    } else {
      s.wm = detail::saved(wm);
      if (s.need_w) s.cols = cols;  // made here from the input: nothing else can change it
      // The weight was read through `wm` (a view or a copy): its version is what backward
      // checks.
      detail::saved(weight);
    }
    return
        [p, s = std::move(s)](const Tensor& grad) { return detail::formulas::conv2d(grad, p, s); };
  });
}

}  // namespace hetero
