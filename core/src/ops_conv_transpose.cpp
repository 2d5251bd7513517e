// SPDX-License-Identifier: Apache-2.0
// conv_transpose2d as torch.nn.functional.conv_transpose2d: the input gradient of the conv2d
// that maps the output's shape back to the input's (torch's ConvolutionBackward with
// transposed=1 is that same identity). Forward: conv2d_input_grad; backward: the input's
// gradient is conv2d of the output's gradient, the weight's is conv2d's weight gradient with
// the two swapped (the output's gradient as the conv2d input, this input as its output
// gradient). Checks and messages follow torch 1.13 (aten/src/ATen/native/Convolution.cpp).
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/conv.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "conv_plan.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "window_views.hpp"

namespace hetero {

namespace {

// The transposed convolution's arguments, checked: the batched input, and the output's
// spatial size.
struct TransposedGeometry {
  Tensor x4;            // [N, C_in, H, W]
  std::int64_t c_out;   // weight.size(1) * groups
  std::int64_t oh, ow;  // the output's height and width
};

std::int64_t output_size(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t pad,
                         std::int64_t out_pad, std::int64_t dil) {
  // (in - 1) stride - 2 pad + dil (k - 1) + out_pad + 1, overflow-checked.
  const std::int64_t grown =
      detail::checked_geometry("conv_transpose2d", {out_pad, 1}, {{in - 1, stride}, {dil, k - 1}});
  return grown - detail::checked_geometry("conv_transpose2d", {pad, pad}, {});
}

TransposedGeometry check_transposed(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                    Size2 stride, Size2 padding, Size2 output_padding,
                                    std::int64_t groups, Size2 dilation) {
  detail::impl_of(x, "conv_transpose2d");
  detail::impl_of(weight, "conv_transpose2d");
  if (bias.defined())
    detail::check_same_device("conv_transpose2d", {&x, &weight, &bias});
  else
    detail::check_same_device("conv_transpose2d", {&x, &weight});
  if (x.dim() != 3 && x.dim() != 4)
    throw ShapeError(
        "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of "
        "size: " +
        detail::shape_str(x.shape()));
  if (weight.dim() != 4)
    throw ShapeError("conv_transpose2d: expected a 4-D weight [in_channels, out_channels / " +
                     std::string("groups, kH, kW], got size ") + detail::shape_str(weight.shape()));
  if (!is_floating_point(x.dtype()))
    throw DTypeError(std::string("conv_transpose2d: expected a floating input, got ") +
                     std::string(dtype_name(x.dtype())) +
                     " (torch runs integer convolutions on its cpu; hetero does not)");
  if (weight.dtype() != x.dtype() || (bias.defined() && bias.dtype() != x.dtype()))
    throw DTypeError("conv_transpose2d: input, weight and bias must have one dtype, got " +
                     std::string(dtype_name(x.dtype())) + ", " +
                     std::string(dtype_name(weight.dtype())) +
                     (bias.defined() ? ", " + std::string(dtype_name(bias.dtype())) : "") +
                     " (torch: \"expected scalar type ... but found ...\")");
  detail::check_conv_args("conv_transpose2d", stride, padding, dilation, groups);
  detail::check_weight_rows(weight, groups);
  if (output_padding.h < 0 || output_padding.w < 0)
    throw ValueError("conv_transpose2d: negative output_padding is not supported, got " +
                     detail::size2_str(output_padding));
  // torch checks this in its kernel, which an empty batch never reaches.
  const bool empty_batch = x.dim() == 4 && x.size(0) == 0;
  if (!empty_batch && ((output_padding.h >= stride.h && output_padding.h >= dilation.h) ||
                       (output_padding.w >= stride.w && output_padding.w >= dilation.w)))
    throw ValueError("conv_transpose2d: output padding must be smaller than either stride or " +
                     std::string("dilation, but got output_padding ") +
                     detail::size2_str(output_padding) + ", stride " + detail::size2_str(stride) +
                     " and dilation " + detail::size2_str(dilation) + " (as torch)");
  if (weight.size(0) % groups != 0)
    throw ValueError("Given groups=" + std::to_string(groups) +
                     ", expected weight to be divisible by " + std::to_string(groups) +
                     " at dimension 0, but got weight of size " +
                     detail::shape_str(weight.shape()) + " instead");
  TransposedGeometry t{x.dim() == 3 ? x.unsqueeze(0) : x, weight.size(1) * groups, 0, 0};
  if (t.x4.size(1) != weight.size(0))
    throw ShapeError("Given transposed=1, weight of size " + detail::shape_str(weight.shape()) +
                     ", expected input" + detail::shape_str(t.x4.shape()) + " to have " +
                     std::to_string(weight.size(0)) + " channels, but got " +
                     std::to_string(t.x4.size(1)) + " channels instead");
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != t.c_out))
    throw ShapeError("Given transposed=1, weight of size " + detail::shape_str(weight.shape()) +
                     ", expected bias to be 1-dimensional with " + std::to_string(t.c_out) +
                     " elements, but got bias of size " + detail::shape_str(bias.shape()) +
                     " instead");
  if (weight.size(2) < 1 || weight.size(3) < 1)
    throw ShapeError("conv_transpose2d: kernel size should be greater than zero, but got " +
                     std::string("kernel_height: ") + std::to_string(weight.size(2)) +
                     " kernel_width: " + std::to_string(weight.size(3)) + " (as torch)");
  detail::check_transposed_weight_not_empty("conv_transpose2d", weight);
  const std::int64_t h = t.x4.size(2), w = t.x4.size(3);
  // An empty batch may have empty rows (torch returns its empty output); the weight's rows
  // are the input's channels, so these have some (check_weight_rows).
  if (t.x4.size(0) > 0 && (h < 1 || w < 1))
    throw ShapeError("conv_transpose2d: only zero batch or zero channel inputs are supported, " +
                     std::string("but got input shape: ") + detail::shape_str(t.x4.shape()));
  t.oh = output_size(h, weight.size(2), stride.h, padding.h, output_padding.h, dilation.h);
  t.ow = output_size(w, weight.size(3), stride.w, padding.w, output_padding.w, dilation.w);
  // An empty batch may have an empty output (torch returns [0, C_out, 0, OW]).
  const bool empty_ok = t.x4.size(0) == 0 && t.oh >= 0 && t.ow >= 0;
  if ((t.oh < 1 || t.ow < 1) && !empty_ok)
    throw ShapeError("Given input size per channel: (" + std::to_string(h) + " x " +
                     std::to_string(w) + "). Calculated output size per channel: (" +
                     std::to_string(t.oh) + " x " + std::to_string(t.ow) +
                     "). Output size is too small");
  (void)detail::checked_numel({t.x4.size(0), t.c_out, t.oh, t.ow});
  return t;
}

// The conv2d over the output's shape has output (H', W') >= (H, W): an output_padding of
// stride or more (allowed when below the dilation) adds input rows no element reaches. The
// input padded with zeros to that size, for the formulas.
Tensor padded_to(const Tensor& x4, std::int64_t h, std::int64_t w) {
  if (x4.size(2) == h && x4.size(3) == w) return x4;
  return detail::pad2d(x4, 0, h - x4.size(2), 0, w - x4.size(3), 0.0);
}

}  // namespace

namespace detail {

Tensor transposed_empty_batch(const char* name, const Shape& shape, const Tensor& input,
                              const Tensor& weight, const Tensor& bias) {
  const TensorOptions options = TensorOptions().dtype(input.dtype()).device(input.device());
  Tensor out;
  {
    NoGradGuard no_grad;
    out = zeros(shape, options);
  }
  return record(name, out, {input, weight, bias}, [&] {
    return [options, x = input.shape(), w = weight.shape(),
            b = bias.defined() ? bias.shape() : Shape{}, has_bias = bias.defined()](const Tensor&) {
      return Gradients{zeros(x, options), zeros(w, options),
                       has_bias ? zeros(b, options) : Tensor()};
    };
  });
}

}  // namespace detail

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride,
                        Size2 padding, Size2 output_padding, std::int64_t groups, Size2 dilation) {
  const detail::prof::Scope op_scope("conv_transpose2d", input);
  const TransposedGeometry t =
      check_transposed(input, weight, bias, stride, padding, output_padding, groups, dilation);
  const std::int64_t n = t.x4.size(0);
  const Shape out_shape{n, t.c_out, t.oh, t.ow};
  if (n == 0 && (t.x4.size(2) == 0 || t.x4.size(3) == 0))
    return detail::transposed_empty_batch("ConvolutionBackward", out_shape, input, weight, bias);
  // The conv2d whose input gradient this is: input out_shape, weight as given.
  const detail::ConvPlan plan = detail::plan_conv(detail::shaped_like(input, out_shape), weight, {},
                                                  stride, padding, dilation, groups);
  if (!plan.by_kernels && is_half(input.dtype())) {
    // As conv2d: 16-bit accumulated in float32, rounded once; the casts carry the gradients.
    return conv_transpose2d(input.to(DType::float32), weight.to(DType::float32),
                            bias.defined() ? bias.to(DType::float32) : Tensor(), stride, padding,
                            output_padding, groups, dilation)
        .to(input.dtype());
  }
  const std::int64_t ch = plan.g.oh, cw = plan.g.ow;  // the conv2d's output: (H', W')
  Tensor out;
  {
    NoGradGuard no_grad;
    out = detail::conv2d_input_grad(padded_to(t.x4, ch, cw).contiguous(), weight, plan);
    if (bias.defined()) out = out + bias.reshape({1, t.c_out, 1, 1});
    if (input.dim() == 3) out = out.squeeze(0);
  }
  const bool batched = input.dim() == 4;
  return detail::record("ConvolutionBackward", out, {input, weight, bias}, [&] {
    const bool need_x = detail::needs_grad({&input}), need_w = detail::needs_grad({&weight});
    const bool need_b = bias.defined() && detail::needs_grad({&bias});
    const Tensor x = need_w ? detail::saved(input) : Tensor();
    const Tensor w = need_x ? detail::saved(weight) : Tensor();
    const Shape wshape = weight.shape();
    const std::int64_t h = t.x4.size(2), wd = t.x4.size(3);
    return [=](const Tensor& grad) {
      const Tensor gy = batched ? grad : grad.unsqueeze(0);
      detail::Gradients grads(3);
      if (need_x) {
        Tensor dx = conv2d(gy, w, {}, stride, padding, dilation, groups);
        if (dx.size(2) != h || dx.size(3) != wd) dx = dx.narrow(2, 0, h).narrow(3, 0, wd);
        grads[0] = batched ? dx : dx.squeeze(0);
      }
      if (need_w) {
        const Tensor x4 = batched ? x : x.unsqueeze(0);
        grads[1] = detail::conv2d_weight_grad(gy.contiguous(), padded_to(x4, ch, cw).contiguous(),
                                              wshape, stride, padding, dilation, groups);
      }
      if (need_b) {
        // Over N, OH, OW; a 16-bit gradient summed in float32 and rounded once (as conv2d's).
        const Tensor planes = gy.reshape({gy.size(0), gy.size(1), gy.size(2) * gy.size(3)});
        const bool narrow = is_half(gy.dtype());
        const Tensor sums = (narrow ? planes.sum(2, false, DType::float32) : planes.sum(2)).sum(0);
        grads[2] = narrow ? sums.to(gy.dtype()) : sums;
      }
      return grads;
    };
  });
}

}  // namespace hetero
