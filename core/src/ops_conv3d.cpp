// SPDX-License-Identifier: Apache-2.0
// conv3d and conv_transpose3d (<hetero/conv3d.hpp>) as torch.nn.functional's, from the 2-d
// convolutions. Checks and messages follow torch 1.13's (aten/src/ATen/native/Convolution.cpp).
//
// Note [3-d ops from 2-d ones]: a 3-d op is its 2-d counterpart over (H, W) with the depth
// dimension folded into the batch or the channels, so every backend runs it on kernels that
// already run there, and autograd differentiates the composition.
// - conv3d: output frame t reads input frames t sd + kd dd - pd, kd < KD. Gathering those KD
//   frames of every output frame into the channels ([N OD, KD C, H, W], group-major so that
//   groups still see their own channels) and the weight alike ([O, KD C / groups, KH, KW])
//   makes the whole convolution one conv2d (the depth taps become GEMM rows, not KD calls).
//   The frames are picked without index arithmetic: the depth-padded input is split into
//   [D' / sd, sd], and tap kd is then the view [off / sd, off / sd + OD) x {off % sd} of it
//   (off = kd dd); one stack copies the KD views.
// - conv_transpose3d: each input frame scatters KD weighted frames, at t sd + kd dd - pd. One
//   conv_transpose2d over [N D, C_in, H, W] whose output channels are the KD taps gives every
//   frame's KD contributions; tap kd, spread to every sd-th frame and shifted by kd dd, is
//   added into the output (KD adds of the output's size, as fold does in 2-d).
// - the pools (ops_pool3d.cpp): a box's maximum or sum is over its frames of each frame's
//   window, so the 2-d pool over (H, W) of [N C, D, H, W] then one over D with windows of
//   width 1 gives it, divisors multiplying and ties resolving as torch's (d, h, w) scan.
#include <hetero/conv3d.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/conv.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>
#include <hetero/padding.hpp>

#include "autograd/record.hpp"
#include "backend_calls.hpp"
#include "conv_plan.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "window_views.hpp"

namespace hetero {

namespace {

using detail::shape_str;

std::string size3_str(Size3 s) { return shape_str({s.d, s.h, s.w}); }

std::string per_channel(std::int64_t d, std::int64_t h, std::int64_t w) {
  return "(" + std::to_string(d) + " x " + std::to_string(h) + " x " + std::to_string(w) + ")";
}

// What conv3d and conv_transpose3d check first, in torch's order: devices, ranks, dtypes,
// and stride, padding, dilation and groups.
void check_common(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias,
                  Size3 stride, Size3 padding, Size3 dilation, std::int64_t groups,
                  const char* weight_layout) {
  detail::impl_of(x, op);
  detail::impl_of(weight, op);
  if (bias.defined())
    detail::check_same_device(op, {&x, &weight, &bias});
  else
    detail::check_same_device(op, {&x, &weight});
  if (x.dim() != 4 && x.dim() != 5)
    throw ShapeError("Expected 4D (unbatched) or 5D (batched) input to " + std::string(op) +
                     ", but got input of size: " + shape_str(x.shape()));
  if (weight.dim() != 5)
    throw ShapeError(std::string(op) + ": expected a 5-D weight " + weight_layout + ", got size " +
                     shape_str(weight.shape()));
  if (!is_floating_point(x.dtype()))
    throw DTypeError(std::string(op) + ": expected a floating input, got " +
                     std::string(dtype_name(x.dtype())) +
                     " (torch runs integer convolutions on its cpu; hetero does not)");
  if (weight.dtype() != x.dtype() || (bias.defined() && bias.dtype() != x.dtype()))
    throw DTypeError(std::string(op) + ": input type (" + std::string(dtype_name(x.dtype())) +
                     "), weight type (" + std::string(dtype_name(weight.dtype())) + ")" +
                     (bias.defined()
                          ? " and bias type (" + std::string(dtype_name(bias.dtype())) + ")"
                          : std::string()) +
                     " should be the same (as torch)");
  const std::string who(op);
  if (stride.d < 1 || stride.h < 1 || stride.w < 1)
    throw ValueError(who + ": non-positive stride is not supported, got " + size3_str(stride));
  if (dilation.d < 1 || dilation.h < 1 || dilation.w < 1)
    throw ValueError(who + ": dilation should be greater than zero, got " + size3_str(dilation));
  if (padding.d < 0 || padding.h < 0 || padding.w < 0)
    throw ValueError(who + ": negative padding is not supported, got " + size3_str(padding));
  if (groups < 1)
    throw ValueError(who + ": non-positive groups is not supported, got " + std::to_string(groups));
  detail::check_weight_rows(weight, groups);
  if (weight.size(2) < 1 || weight.size(3) < 1 || weight.size(4) < 1)
    throw ShapeError(who + ": kernel size should be greater than zero, but got " +
                     shape_str({weight.size(2), weight.size(3), weight.size(4)}) + " (as torch)");
}

// The output size of conv3d along one dimension (the padded size and dilated kernel first,
// overflow-checked): < 1 when the kernel does not fit.
struct Extent {
  std::int64_t padded, kernel, out;
  // The stride `s` as the kernels get it. A dimension with one window (out == 1) reads the
  // same taps under any stride, so a stride beyond the window's room, padded - kernel + 1,
  // becomes that room: the composition below pads the depth to a multiple of its stride
  // (a stride of 2^31 asked for 256 GiB) and oneDNN declines strides from 2^31 on, where
  // torch convolves (a [1, 2, 4, 4, 4] input by a 2^3 kernel gives [1, 3, 1, 1, 1] at any
  // stride).
  std::int64_t stride_for(std::int64_t s) const {
    return out == 1 ? std::min(s, padded - kernel + 1) : s;
  }
};
Extent conv_extent(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p,
                   std::int64_t dil) {
  const std::int64_t padded = detail::checked_geometry("conv3d", {in, p, p}, {});
  const std::int64_t kernel = detail::checked_geometry("conv3d", {1}, {{dil, k - 1}});
  return {padded, kernel, padded < kernel ? 0 : (padded - kernel) / s + 1};
}

// The backend's 3-d convolution kernels (Backend::conv3d, interface minor 16), where it has
// all three for the dtype and the tensors have elements (the composition handles the empty
// cases): Note [3-d convolution kernels].
bool backend_convolves3d(const Tensor& x, const Conv3dArgs& g) {
  const detail::Storage& on = detail::storage_of(x);
  const DType t = x.dtype();
  return g.n > 0 && g.c > 0 && g.o > 0 && detail::calls::has_kernel(on, Conv3dOp::forward, t) &&
         detail::calls::has_kernel(on, Conv3dOp::backward_input, t) &&
         detail::calls::has_kernel(on, Conv3dOp::backward_weight, t);
}

// One 3-d convolution kernel on dense copies of a and b, into a new tensor of `shape`.
Tensor conv3d_kernel(Conv3dOp op, const Conv3dArgs& g, const Tensor& a, const Tensor& b,
                     Shape shape) {
  const Tensor da = a.contiguous(), db = b.contiguous();
  Tensor out = detail::new_tensor_like(std::move(shape), da.dtype(), da);
  detail::calls::conv3d(detail::storage_of(out), op, g, detail::view_of(da), detail::view_of(db),
                        detail::view_of(out));
  return out;
}

// The bias's gradient: gy [N, C, D, H, W] summed over all but C; a 16-bit gradient summed in
// float32 and rounded once, as torch's.
Tensor bias_grad3d(const Tensor& gy) {
  const bool narrow = is_half(gy.dtype());
  const Tensor planes = gy.reshape({gy.size(0), gy.size(1), -1});
  const Tensor sums = (narrow ? planes.sum(2, false, DType::float32) : planes.sum(2)).sum(0);
  return narrow ? sums.to(gy.dtype()) : sums;
}

// `conv(x, w, b)` of float32 copies of the operands, rounded once to the input's dtype (a
// 16-bit convolution as torch's: float32 accumulation, the bias added before the rounding);
// the casts carry the gradients back. An undefined bias stays undefined.
template <class Conv>
Tensor in_float32(const Tensor& input, const Tensor& weight, const Tensor& bias, Conv&& conv) {
  return conv(input.to(DType::float32), weight.to(DType::float32),
              bias.defined() ? bias.to(DType::float32) : Tensor())
      .to(input.dtype());
}

// Note [3-d convolution kernels]: where the backend has Backend::conv3d (the cpu plugin on
// oneDNN's native 3-d primitive, as libtorch's conv3d), conv3d is its forward kernel plus the
// bias, and one node whose backward calls its two gradient kernels and sums the bias's
// gradient, as conv2d's kernel route (ops_conv.cpp). conv_transpose3d (`transposed`) runs on
// the same kernels: it is the input gradient of the conv3d `g` whose input has the transposed
// convolution's output shape and whose output has its input's (every output_padding below its
// stride), as conv_transpose2d on Backend::conv2d; its gradients are that conv3d of the
// output's gradient (the input's) and conv3d's weight gradient with input and output gradient
// exchanged. `x` is the batched input.
Tensor conv3d_by_kernels(const Tensor& input, const Tensor& x, const Tensor& weight,
                         const Tensor& bias, const Conv3dArgs& g, bool transposed) {
  const bool batched = input.dim() == 5;
  // conv3d's input and output shapes; the transposed convolution reads the one, writes the other.
  const Shape small{g.n, g.o, g.od, g.oh, g.ow}, large{g.n, g.c, g.d, g.h, g.w};
  const Shape& out_shape = transposed ? large : small;
  const Shape& in_shape = transposed ? small : large;
  Tensor out;
  {
    NoGradGuard no_grad;
    out = conv3d_kernel(transposed ? Conv3dOp::backward_input : Conv3dOp::forward, g, x, weight,
                        out_shape);
    // In place: the kernel's fresh result, not yet seen by autograd.
    if (bias.defined())
      detail::binary_into(BinaryOp::add, out, bias.reshape({1, out_shape[1], 1, 1, 1}), out);
    if (!batched) out = out.squeeze(0);
  }
  const char* name = transposed ? "ConvolutionTranspose3dBackward" : "Convolution3dBackward";
  return detail::record(name, out, {input, weight, bias}, [&] {
    const bool need_x = detail::needs_grad({&input}), need_w = detail::needs_grad({&weight});
    const bool need_b = bias.defined() && detail::needs_grad({&bias});
    const Tensor sx = need_w ? detail::saved(input) : Tensor();
    const Tensor sw = need_x ? detail::saved(weight) : Tensor();
    return [g, batched, transposed, need_x, need_w, need_b, sx, sw, out_shape, in_shape,
            wshape = weight.shape()](const Tensor& grad) {
      detail::Gradients grads(3);
      const Tensor gy = grad.reshape(out_shape);
      if (need_b) grads[2] = bias_grad3d(gy);
      if (need_w) {
        const Tensor x5 = batched ? sx : sx.unsqueeze(0);
        grads[1] = transposed ? conv3d_kernel(Conv3dOp::backward_weight, g, x5, gy, wshape)
                              : conv3d_kernel(Conv3dOp::backward_weight, g, gy, x5, wshape);
      }
      if (need_x) {
        const Tensor dx = conv3d_kernel(transposed ? Conv3dOp::forward : Conv3dOp::backward_input,
                                        g, gy, sw, in_shape);
        grads[0] = batched ? dx : dx.squeeze(0);
      }
      return grads;
    };
  });
}

}  // namespace

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size3 stride,
              Size3 padding, Size3 dilation, std::int64_t groups) {
  const detail::prof::Scope op_scope("conv3d", input);
  check_common("conv3d", input, weight, bias, stride, padding, dilation, groups,
               "[out_channels, in_channels / groups, kD, kH, kW]");
  const bool batched = input.dim() == 5;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const std::int64_t n = x.size(0), c = x.size(1), d = x.size(2), h = x.size(3), w = x.size(4);
  const std::int64_t o = weight.size(0), kd = weight.size(2);
  if (o % groups != 0)
    throw ValueError("conv3d: out_channels (" + std::to_string(o) +
                     ") must be divisible by groups (" + std::to_string(groups) + ")");
  if (weight.size(1) * groups != c)
    throw ShapeError("Given groups=" + std::to_string(groups) + ", weight of size " +
                     shape_str(weight.shape()) + ", expected input" + shape_str(x.shape()) +
                     " to have " + std::to_string(weight.size(1) * groups) + " channels, but got " +
                     std::to_string(c) + " channels instead");
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != o))
    throw ShapeError("Given weight of size " + shape_str(weight.shape()) +
                     ", expected bias to be 1-dimensional with " + std::to_string(o) +
                     " elements, but got bias of size " + shape_str(bias.shape()) + " instead");
  if (n > 0 && c > 0 && (d == 0 || h == 0 || w == 0))
    throw ShapeError("conv3d: only zero batch or zero channel inputs are supported, but got " +
                     std::string("input shape: ") + shape_str(x.shape()) + " (as torch)");
  const Extent ed = conv_extent(d, kd, stride.d, padding.d, dilation.d);
  const Extent eh = conv_extent(h, weight.size(3), stride.h, padding.h, dilation.h);
  const Extent ew = conv_extent(w, weight.size(4), stride.w, padding.w, dilation.w);
  if (ed.out < 1 || eh.out < 1 || ew.out < 1)
    throw ShapeError("Calculated padded input size per channel: " +
                     per_channel(ed.padded, eh.padded, ew.padded) +
                     ". Kernel size: " + per_channel(ed.kernel, eh.kernel, ew.kernel) +
                     ". Kernel size can't be greater than actual input size");
  stride = Size3(ed.stride_for(stride.d), eh.stride_for(stride.h), ew.stride_for(stride.w));
  const std::int64_t od = ed.out, sd = stride.d;
  (void)detail::checked_numel({n, o, od, eh.out, ew.out});
  const Conv3dArgs g{n,
                     c,
                     d,
                     h,
                     w,
                     o,
                     groups,
                     kd,
                     weight.size(3),
                     weight.size(4),
                     sd,
                     stride.h,
                     stride.w,
                     padding.d,
                     padding.h,
                     padding.w,
                     dilation.d,
                     dilation.h,
                     dilation.w,
                     od,
                     eh.out,
                     ew.out};
  if (backend_convolves3d(x, g)) return conv3d_by_kernels(input, x, weight, bias, g, false);
  if (is_half(x.dtype())) {
    // As torch's 16-bit convolution and conv2d's: accumulated in float32 and rounded once,
    // the bias added before that rounding. The composition in 16 bits rounded each depth
    // tap's input gradient before adding the taps (the conformance kit's
    // Conv3dMatchesDirectLoops found it). The casts carry the gradients back to 16 bits.
    return in_float32(input, weight, bias,
                      [&](const Tensor& x32, const Tensor& w32, const Tensor& b32) {
                        return conv3d(x32, w32, b32, stride, padding, dilation, groups);
                      });
  }
  // The gathered input [N OD, KD C, H, W] must be indexable.
  (void)detail::checked_numel({n, od, kd, c, h, w});
  // Depth padded to Q sd frames, Q = (KD - 1) dd / sd + OD: every tap's OD frames lie in
  // [off / sd, off / sd + OD) of the [Q, sd] split (frames past the last window are cropped).
  const std::int64_t q = (kd - 1) * dilation.d / sd + od;
  const std::int64_t back = q * sd - d - padding.d;
  // Without depth padding, the frames past the last window are a narrow (no copy).
  const Tensor xp =
      padding.d == 0 && back <= 0 ? x.narrow(2, 0, q * sd) : pad(x, {0, 0, 0, 0, padding.d, back});
  const Tensor split = xp.reshape({n, groups, c / groups, q, sd, h, w});
  std::vector<Tensor> taps;
  taps.reserve(static_cast<std::size_t>(kd));
  for (std::int64_t i = 0; i < kd; ++i) {
    const std::int64_t off = i * dilation.d;
    // [N, G, C / G, OD, 1, H, W] -> [N, OD, G, 1, C / G, H, W]
    taps.push_back(
        split.narrow(4, off % sd, 1).narrow(3, off / sd, od).permute({0, 3, 1, 4, 2, 5, 6}));
  }
  const Tensor gathered = cat(taps, 3).reshape({n * od, kd * c, h, w});
  const Tensor w2 = weight.permute({0, 2, 1, 3, 4})
                        .reshape({o, kd * weight.size(1), weight.size(3), weight.size(4)});
  const Tensor y = conv2d(gathered, w2, bias, {stride.h, stride.w}, {padding.h, padding.w},
                          {dilation.h, dilation.w}, groups);
  const Tensor out = y.reshape({n, od, o, eh.out, ew.out}).permute({0, 2, 1, 3, 4}).contiguous();
  return batched ? out : out.squeeze(0);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size3 stride,
                        Size3 padding, Size3 output_padding, std::int64_t groups, Size3 dilation) {
  const detail::prof::Scope op_scope("conv_transpose3d", input);
  check_common("conv_transpose3d", input, weight, bias, stride, padding, dilation, groups,
               "[in_channels, out_channels / groups, kD, kH, kW]");
  if (output_padding.d < 0 || output_padding.h < 0 || output_padding.w < 0)
    throw ValueError("conv_transpose3d: negative output_padding is not supported, got " +
                     size3_str(output_padding));
  const bool batched = input.dim() == 5;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const std::int64_t n = x.size(0), c = x.size(1), d = x.size(2), h = x.size(3), w = x.size(4);
  const auto too_big = [](std::int64_t op, std::int64_t s, std::int64_t dil) {
    return op >= s && op >= dil;
  };
  // torch checks this in its kernel, which an empty batch never reaches.
  if (n > 0 && (too_big(output_padding.d, stride.d, dilation.d) ||
                too_big(output_padding.h, stride.h, dilation.h) ||
                too_big(output_padding.w, stride.w, dilation.w)))
    throw ValueError("conv_transpose3d: output padding must be smaller than either stride or " +
                     std::string("dilation, but got output_padding ") + size3_str(output_padding) +
                     ", stride " + size3_str(stride) + " and dilation " + size3_str(dilation) +
                     " (as torch)");
  if (weight.size(0) % groups != 0)
    throw ValueError("Given groups=" + std::to_string(groups) +
                     ", expected weight to be divisible by " + std::to_string(groups) +
                     " at dimension 0, but got weight of size " + shape_str(weight.shape()) +
                     " instead");
  const std::int64_t co_g = weight.size(1), c_out = co_g * groups, kd = weight.size(2);
  if (c != weight.size(0))
    throw ShapeError("Given transposed=1, weight of size " + shape_str(weight.shape()) +
                     ", expected input" + shape_str(x.shape()) + " to have " +
                     std::to_string(weight.size(0)) + " channels, but got " + std::to_string(c) +
                     " channels instead");
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != c_out))
    throw ShapeError("Given transposed=1, weight of size " + shape_str(weight.shape()) +
                     ", expected bias to be 1-dimensional with " + std::to_string(c_out) +
                     " elements, but got bias of size " + shape_str(bias.shape()) + " instead");
  detail::check_transposed_weight_not_empty("conv_transpose3d", weight);
  // An empty batch may have empty frames (torch returns its empty output); the weight's rows
  // are the input's channels, so these have some (check_weight_rows).
  if (n > 0 && (d < 1 || h < 1 || w < 1))
    throw ShapeError("conv_transpose3d: only zero batch or zero channel inputs are supported, " +
                     std::string("but got input shape: ") + shape_str(x.shape()));
  // (in - 1) stride + dil (k - 1) + output_padding + 1 before the crop of 2 padding.
  const auto full = [](std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t dil,
                       std::int64_t op) {
    return detail::checked_geometry("conv_transpose3d", {op, 1}, {{in - 1, s}, {dil, k - 1}});
  };
  const std::int64_t fd = full(d, kd, stride.d, dilation.d, output_padding.d);
  const std::int64_t od =
      fd - detail::checked_geometry("conv_transpose3d", {padding.d, padding.d}, {});
  const std::int64_t oh = full(h, weight.size(3), stride.h, dilation.h, output_padding.h) -
                          detail::checked_geometry("conv_transpose3d", {padding.h, padding.h}, {});
  const std::int64_t ow = full(w, weight.size(4), stride.w, dilation.w, output_padding.w) -
                          detail::checked_geometry("conv_transpose3d", {padding.w, padding.w}, {});
  const bool empty_ok = n == 0 && od >= 0 && oh >= 0 && ow >= 0;
  if ((od < 1 || oh < 1 || ow < 1) && !empty_ok)
    throw ShapeError("Given input size per channel: " + per_channel(d, h, w) +
                     ". Calculated output size per channel: " + per_channel(od, oh, ow) +
                     ". Output size is too small");
  (void)detail::checked_numel({n, c_out, od, oh, ow});
  if (n == 0 && (d == 0 || h == 0 || w == 0))
    return detail::transposed_empty_batch("ConvolutionBackward", {0, c_out, od, oh, ow}, input,
                                          weight, bias);
  if (n > 0 && output_padding.d < stride.d && output_padding.h < stride.h &&
      output_padding.w < stride.w) {
    // The conv3d whose input gradient this is: input [N, C_out, OD, OH, OW], output the input.
    const Conv3dArgs g{n,
                       c_out,
                       od,
                       oh,
                       ow,
                       c,
                       groups,
                       kd,
                       weight.size(3),
                       weight.size(4),
                       stride.d,
                       stride.h,
                       stride.w,
                       padding.d,
                       padding.h,
                       padding.w,
                       dilation.d,
                       dilation.h,
                       dilation.w,
                       d,
                       h,
                       w};
    if (backend_convolves3d(x, g)) return conv3d_by_kernels(input, x, weight, bias, g, true);
  }
  (void)detail::checked_numel({n, d, kd, c_out, oh, ow});
  (void)detail::checked_numel({n, c_out, fd, oh, ow});
  if (is_half(x.dtype())) {
    // In float32 and rounded once, as conv3d above: in 16 bits the KD taps' contributions to
    // an output frame were each rounded before they were added.
    return in_float32(
        input, weight, bias, [&](const Tensor& x32, const Tensor& w32, const Tensor& b32) {
          return conv_transpose3d(x32, w32, b32, stride, padding, output_padding, groups, dilation);
        });
  }
  // [N D, C_in, H, W] by a weight [C_in, KD C_out / G, KH, KW] whose output channels are the
  // taps: [N D, G KD C_out / G, OH, OW], seen as [N, D, G, KD, C_out / G, OH, OW].
  const Tensor frames = x.permute({0, 2, 1, 3, 4}).reshape({n * d, c, h, w});
  const Tensor w2 =
      weight.permute({0, 2, 1, 3, 4}).reshape({c, kd * co_g, weight.size(3), weight.size(4)});
  const Tensor z =
      conv_transpose2d(frames, w2, {}, {stride.h, stride.w}, {padding.h, padding.w},
                       {output_padding.h, output_padding.w}, groups, {dilation.h, dilation.w})
          .reshape({n, d, groups, kd, co_g, oh, ow});
  // Tap i of input frame t lands on full-length frame t sd + i dd: frames spread sd apart
  // (sd - 1 zero frames after each), then shifted by i dd within fd frames.
  const std::int64_t sd = stride.d;
  Tensor sum;
  for (std::int64_t i = 0; i < kd; ++i) {
    // [N, D, G, 1, C_out / G, OH, OW] -> [N, D, 1, G, C_out / G, OH, OW] -> [N, D sd, C_out,
    // OH, OW]
    const Tensor tap = z.narrow(3, i, 1).permute({0, 1, 3, 2, 4, 5, 6});
    const Tensor spread =
        pad(tap, {0, 0, 0, 0, 0, 0, 0, 0, 0, sd - 1}).reshape({n, d * sd, c_out, oh, ow});
    const std::int64_t front = i * dilation.d;
    const Tensor placed = pad(spread, {0, 0, 0, 0, 0, 0, front, fd - front - d * sd});
    sum = sum.defined() ? sum + placed : placed;
  }
  Tensor out = sum.narrow(1, padding.d, od).permute({0, 2, 1, 3, 4}).contiguous();
  if (bias.defined()) out = out + bias.reshape({1, c_out, 1, 1, 1});
  return batched ? out : out.squeeze(0);
}

}  // namespace hetero
