// SPDX-License-Identifier: Apache-2.0
// max_pool3d, avg_pool3d, adaptive_avg_pool3d and adaptive_max_pool3d (<hetero/conv3d.hpp>) as
// torch.nn.functional's: the 2-d pool over (H, W) of [N C, D, H, W], then a pool over D (Note
// [3-d ops from 2-d ones], ops_conv3d.cpp). Checks and messages follow torch 1.13's
// (aten/src/ATen/native/Pool.h pool3d_shape_check, AdaptivePooling.h).
#include <hetero/conv3d.hpp>

#include <string>
#include <utility>

#include <hetero/autograd.hpp>
#include <hetero/conv.hpp>
#include <hetero/conv1d.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "op_helpers.hpp"
#include "pool_input.hpp"
#include "profiler_record.hpp"
#include "window_views.hpp"

namespace hetero {

namespace {

using detail::shape_str;

std::string size3_str(Size3 s) { return shape_str({s.d, s.h, s.w}); }

// The input as [N, C, D, H, W] (a 4-d one gains N = 1): ShapeError naming `op` for another
// rank or an empty non-batch dimension, NotImplementedError unless floating.
Tensor pool3d_input(const Tensor& x, const char* op) {
  detail::impl_of(x, op);
  if (x.dim() != 4 && x.dim() != 5)
    throw ShapeError(std::string(op) +
                     ": non-empty 4D or 5D (batch mode) tensor expected for input, got size " +
                     shape_str(x.shape()));
  for (std::int64_t d = x.dim() - 4; d < x.dim(); ++d)
    if (x.size(d) == 0)
      throw ShapeError(std::string(op) +
                       ": Expected input's non-batch dimensions to have positive length, but "
                       "input has a shape of " +
                       shape_str(x.shape()) + " (as torch)");
  detail::check_pool_dtype(x, op);
  return x.dim() == 4 ? x.unsqueeze(0) : x;
}

// A pooling's output size [OD, OH, OW], its window checked as torch's pool3d_shape_check.
Size3 pooled(const Tensor& x5, const char* op, Size3 k, Size3 s, Size3 p, Size3 dil,
             bool ceil_mode) {
  const std::string who(op);
  if (k.d < 1 || k.h < 1 || k.w < 1)
    throw ValueError(who + ": kernel size should be greater than zero, got " + size3_str(k));
  if (s.d < 1 || s.h < 1 || s.w < 1)
    throw ValueError(who + ": stride should be greater than zero, got " + size3_str(s));
  if (dil.d < 1 || dil.h < 1 || dil.w < 1)
    throw ValueError(who + ": dilation should be greater than zero, got " + size3_str(dil));
  if (p.d < 0 || p.h < 0 || p.w < 0 || p.d > k.d / 2 || p.h > k.h / 2 || p.w > k.w / 2)
    throw ValueError(who + ": pad should be at most half of kernel size, but got pad=" +
                     size3_str(p) + " and kernel_size=" + size3_str(k));
  const std::int64_t c = x5.size(1), d = x5.size(2), h = x5.size(3), w = x5.size(4);
  const Size3 out{detail::pooled_size(d, k.d, p.d, s.d, dil.d, ceil_mode),
                  detail::pooled_size(h, k.h, p.h, s.h, dil.h, ceil_mode),
                  detail::pooled_size(w, k.w, p.w, s.w, dil.w, ceil_mode)};
  if (out.d < 1 || out.h < 1 || out.w < 1)
    throw ShapeError(who + ": Given input size: (" + std::to_string(c) + "x" + std::to_string(d) +
                     "x" + std::to_string(h) + "x" + std::to_string(w) +
                     "). Calculated output size: (" + std::to_string(c) + "x" +
                     std::to_string(out.d) + "x" + std::to_string(out.h) + "x" +
                     std::to_string(out.w) + "). Output size is too small");
  (void)detail::checked_numel({x5.size(0), c, out.d, out.h, out.w});
  return out;
}

// [N, C, D, H, W] as the 2-d pools' [N C, D, H, W] (the frames as channels).
Tensor frames_as_channels(const Tensor& x5) {
  return x5.reshape({x5.size(0) * x5.size(1), x5.size(2), x5.size(3), x5.size(4)});
}

// y [N C, D, OH, OW] as [N C, 1, D, OH OW]: the pool over D is a 2-d one with windows of
// width 1.
Tensor depth_as_rows(const Tensor& y) {
  return y.reshape({y.size(0), 1, y.size(1), y.size(2) * y.size(3)});
}

Tensor unbatch(const Tensor& input, const Tensor& y) { return input.dim() == 5 ? y : y.squeeze(0); }

// The adaptive pools' checks: the input as [N, C, D, H, W], output sizes >= 0 and the output
// indexable.
Tensor adaptive3d_input(const Tensor& input, Size3 out, const char* op) {
  const Tensor x5 = pool3d_input(input, op);
  if (out.d < 0 || out.h < 0 || out.w < 0)
    throw ValueError(std::string(op) +
                     ": elements of output_size must be greater than or equal "
                     "to 0 but received " +
                     size3_str(out));
  (void)detail::checked_numel({x5.size(0), x5.size(1), out.d, out.h, out.w});
  return x5;
}

// No windows (an output size of 0): an empty result, still connected to the input for
// autograd (its gradient is zeros), as adaptive_avg_pool2d's.
Tensor no_windows(const Tensor& input, const Tensor& x5, Size3 out) {
  const Tensor none = x5.flatten().narrow(0, 0, 0);
  return unbatch(input, none.reshape({x5.size(0), x5.size(1), out.d, out.h, out.w}));
}

}  // namespace

Tensor max_pool3d(const Tensor& input, Size3 kernel, std::optional<Size3> stride, Size3 padding,
                  Size3 dilation, bool ceil_mode) {
  const detail::prof::Scope op_scope("max_pool3d", input);
  const Tensor x5 = pool3d_input(input, "max_pool3d");
  const Size3 s = stride.value_or(kernel);
  const Size3 out = pooled(x5, "max_pool3d", kernel, s, padding, dilation, ceil_mode);
  const Tensor y = max_pool2d(frames_as_channels(x5), {kernel.h, kernel.w}, Size2{s.h, s.w},
                              {padding.h, padding.w}, {dilation.h, dilation.w}, ceil_mode);
  const Tensor z = max_pool2d(depth_as_rows(y), {kernel.d, 1}, Size2{s.d, 1}, {padding.d, 0},
                              {dilation.d, 1}, ceil_mode);
  return unbatch(input, z.reshape({x5.size(0), x5.size(1), out.d, out.h, out.w}));
}

std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, Size3 kernel,
                                                  std::optional<Size3> stride, Size3 padding,
                                                  Size3 dilation, bool ceil_mode) {
  const detail::prof::Scope op_scope("max_pool3d_with_indices", input);
  const Tensor x5 = pool3d_input(input, "max_pool3d");
  const Size3 s = stride.value_or(kernel);
  const Size3 out = pooled(x5, "max_pool3d", kernel, s, padding, dilation, ceil_mode);
  // Each frame's maxima and their positions h W + w in the frame: [N C, D, OH, OW].
  const auto [y, in_frame] =
      max_pool2d_with_indices(frames_as_channels(x5), {kernel.h, kernel.w}, Size2{s.h, s.w},
                              {padding.h, padding.w}, {dilation.h, dilation.w}, ceil_mode);
  // The maxima over D of [N C, 1, D, OH OW], and where: frame f of cell c is f (OH OW) + c.
  const auto [z, at] = max_pool2d_with_indices(depth_as_rows(y), {kernel.d, 1}, Size2{s.d, 1},
                                               {padding.d, 0}, {dilation.d, 1}, ceil_mode);
  const std::int64_t nc = y.size(0), d = x5.size(2), cells = out.h * out.w;
  const Shape shape{x5.size(0), x5.size(1), out.d, out.h, out.w};
  Tensor index;
  {
    NoGradGuard no_grad;
    const Tensor flat = at.reshape({nc, out.d * cells});
    const TensorOptions on = TensorOptions(at.device()).dtype(DType::int64);
    // (flat - cell) / cells is the frame: exact (true division of multiples), then int64
    const Tensor frame = div(flat.reshape({nc, out.d, cells}) - arange(cells, on),
                             full({}, static_cast<double>(cells), on))
                             .to(DType::int64);
    const Tensor hw = gather(in_frame.reshape({nc, d * cells}), 1, flat);
    index = (frame.reshape({nc, out.d * cells}) * (x5.size(3) * x5.size(4)) + hw).reshape(shape);
  }
  return {unbatch(input, z.reshape(shape)), unbatch(input, index)};
}

Tensor avg_pool3d(const Tensor& input, Size3 kernel, std::optional<Size3> stride, Size3 padding,
                  bool ceil_mode, bool count_include_pad,
                  std::optional<std::int64_t> divisor_override) {
  const detail::prof::Scope op_scope("avg_pool3d", input);
  const Tensor x5 = pool3d_input(input, "avg_pool3d");
  const Size3 s = stride.value_or(kernel);
  const Size3 out = pooled(x5, "avg_pool3d", kernel, s, padding, 1, ceil_mode);
  // torch's avg_pool3d (pool3d_shape_check with check_input_size) also refuses an input
  // smaller than the kernel before its padding; its max_pool3d and the 2-d pools do not.
  const std::int64_t d = x5.size(2), h = x5.size(3), w = x5.size(4);
  if (d < kernel.d || h < kernel.h || w < kernel.w)
    throw ShapeError(
        "avg_pool3d: input image (T: " + std::to_string(d) + " H: " + std::to_string(h) +
        " W: " + std::to_string(w) + ") smaller than kernel size (kT: " + std::to_string(kernel.d) +
        " kH: " + std::to_string(kernel.h) + " kW: " + std::to_string(kernel.w) + ") (as torch)");
  if (divisor_override && *divisor_override <= 0)
    throw ValueError("avg_pool3d: divisor must be not zero, got " +
                     std::to_string(*divisor_override));
  // 16-bit inputs in float32, rounded once (the two 2-d pools would round twice).
  const DType t = x5.dtype();
  const bool narrow = t == DType::float16 || t == DType::bfloat16;
  const Tensor x = narrow ? x5.to(DType::float32) : x5;
  // With divisor_override the first pool sums (divisor 1) and the second divides.
  const std::optional<std::int64_t> sums =
      divisor_override ? std::optional<std::int64_t>(1) : std::nullopt;
  const Tensor y = avg_pool2d(frames_as_channels(x), {kernel.h, kernel.w}, Size2{s.h, s.w},
                              {padding.h, padding.w}, ceil_mode, count_include_pad, sums);
  const Tensor z = avg_pool2d(depth_as_rows(y), {kernel.d, 1}, Size2{s.d, 1}, {padding.d, 0},
                              ceil_mode, count_include_pad, divisor_override);
  const Tensor r = z.reshape({x5.size(0), x5.size(1), out.d, out.h, out.w});
  return unbatch(input, narrow ? r.to(t) : r);
}

Tensor adaptive_avg_pool3d(const Tensor& input, Size3 output_size) {
  const detail::prof::Scope op_scope("adaptive_avg_pool3d", input);
  const Tensor x5 = adaptive3d_input(input, output_size, "adaptive_avg_pool3d");
  if (output_size.d == 0 || output_size.h == 0 || output_size.w == 0)
    return no_windows(input, x5, output_size);
  const DType t = x5.dtype();
  const bool narrow = t == DType::float16 || t == DType::bfloat16;
  const Tensor x = narrow ? x5.to(DType::float32) : x5;
  const Tensor y = adaptive_avg_pool2d(frames_as_channels(x), {output_size.h, output_size.w});
  const Tensor z =
      adaptive_avg_pool2d(depth_as_rows(y), {output_size.d, output_size.h * output_size.w});
  const Tensor r = z.reshape({x5.size(0), x5.size(1), output_size.d, output_size.h, output_size.w});
  return unbatch(input, narrow ? r.to(t) : r);
}

Tensor adaptive_max_pool3d(const Tensor& input, Size3 output_size) {
  const detail::prof::Scope op_scope("adaptive_max_pool3d", input);
  const Tensor x5 = adaptive3d_input(input, output_size, "adaptive_max_pool3d");
  if (output_size.d == 0 || output_size.h == 0 || output_size.w == 0)
    return no_windows(input, x5, output_size);
  const std::int64_t nc = x5.size(0) * x5.size(1), d = x5.size(2);
  const std::int64_t cells = output_size.h * output_size.w;
  const Tensor y = adaptive_max_pool2d(frames_as_channels(x5), {output_size.h, output_size.w});
  // Over D as a 1-d pool of [N C, OH OW, D] (the depth last: its window table is OD windows
  // of D, not OD OH OW ones).
  const Tensor z = adaptive_max_pool1d(y.reshape({nc, d, cells}).transpose(1, 2), output_size.d);
  return unbatch(input, z.transpose(1, 2).reshape(
                            {x5.size(0), x5.size(1), output_size.d, output_size.h, output_size.w}));
}

std::pair<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input, Size3 output_size) {
  const detail::prof::Scope op_scope("adaptive_max_pool3d_with_indices", input);
  const Tensor x5 = adaptive3d_input(input, output_size, "adaptive_max_pool3d");
  const Shape shape{x5.size(0), x5.size(1), output_size.d, output_size.h, output_size.w};
  if (output_size.d == 0 || output_size.h == 0 || output_size.w == 0)
    return {no_windows(input, x5, output_size),
            unbatch(input, zeros(shape, TensorOptions(x5.device()).dtype(DType::int64)))};
  const std::int64_t nc = x5.size(0) * x5.size(1), d = x5.size(2);
  const std::int64_t cells = output_size.h * output_size.w;
  // each frame's maxima and their positions h W + w in the frame: [N C, D, OH, OW]
  const auto [y, in_frame] =
      adaptive_max_pool2d_with_indices(frames_as_channels(x5), {output_size.h, output_size.w});
  // the maxima over D of [N C, OH OW, D], and in which frame
  const auto [z, frame] =
      adaptive_max_pool1d_with_indices(y.reshape({nc, d, cells}).transpose(1, 2), output_size.d);
  Tensor index;
  {
    NoGradGuard no_grad;
    const Tensor hw = gather(in_frame.reshape({nc, d, cells}).transpose(1, 2), 2, frame);
    index = (frame * (x5.size(3) * x5.size(4)) + hw).transpose(1, 2).reshape(shape);
  }
  return {unbatch(input, z.transpose(1, 2).reshape(shape)), unbatch(input, index)};
}

}  // namespace hetero
