// SPDX-License-Identifier: Apache-2.0
// max_pool2d and avg_pool2d as torch.nn.functional's, over strided
// window views (Note [Convolution as GEMM], window_views.hpp). Checks and messages follow
// torch 1.13's (aten/src/ATen/native/Pool.h).
#include <algorithm>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
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
#include "op_helpers.hpp"
#include "pool_input.hpp"
#include "profiler_record.hpp"
#include "window_views.hpp"

namespace hetero {
namespace {

using PoolGeometry = detail::WindowGeometry;

PoolGeometry check_pool(const Tensor& x4, const char* op, Size2 kernel, std::optional<Size2> stride,
                        Size2 padding, Size2 dilation, bool ceil_mode) {
  const Size2 s = stride.value_or(kernel);
  if (kernel.h < 1 || kernel.w < 1)
    throw ValueError(std::string(op) + ": kernel size should be greater than zero, got " +
                     detail::size2_str(kernel));
  if (s.h < 1 || s.w < 1)
    throw ValueError(std::string(op) + ": stride should be greater than zero, got " +
                     detail::size2_str(s));
  if (dilation.h < 1 || dilation.w < 1)
    throw ValueError(std::string(op) + ": dilation should be greater than zero");
  if (padding.h < 0 || padding.w < 0 || padding.h > kernel.h / 2 || padding.w > kernel.w / 2)
    throw ValueError(std::string(op) + ": pad should be at most half of kernel size, but got pad=" +
                     detail::size2_str(padding) + " and kernel_size=" + detail::size2_str(kernel));
  PoolGeometry g{x4.size(0), x4.size(1), x4.size(2), x4.size(3), 0, 0, {}};
  g.oh = detail::pooled_size(g.h, kernel.h, padding.h, s.h, dilation.h, ceil_mode);
  g.ow = detail::pooled_size(g.w, kernel.w, padding.w, s.w, dilation.w, ceil_mode);
  if (g.oh < 1 || g.ow < 1)
    throw ShapeError(std::string(op) + ": given input size: (" + std::to_string(g.c) + "x" +
                     std::to_string(g.h) + "x" + std::to_string(g.w) +
                     "). Calculated output size: (" + std::to_string(g.c) + "x" +
                     std::to_string(g.oh) + "x" + std::to_string(g.ow) +
                     "). Output size is too small");
  g.win = {kernel.h, kernel.w, s.h, s.w, padding.h, padding.w, dilation.h, dilation.w};
  // ceil_mode's last window may reach past the right padding: pad that far too.
  g.win.extra_h = std::max<std::int64_t>(
      0, (g.oh - 1) * s.h + dilation.h * (kernel.h - 1) + 1 - (g.h + 2 * padding.h));
  g.win.extra_w = std::max<std::int64_t>(
      0, (g.ow - 1) * s.w + dilation.w * (kernel.w - 1) + 1 - (g.w + 2 * padding.w));
  // The padded input must be indexable (issue #44: a kernel and padding near 2^62 passed
  // the checks above and crashed in the padding).
  (void)detail::checked_numel(
      {g.n, g.c, detail::checked_geometry(op, {g.h, padding.h, padding.h, g.win.extra_h}, {}),
       detail::checked_geometry(op, {g.w, padding.w, padding.w, g.win.extra_w}, {})});
  return g;
}

// x4 padded for the windows of `g` with `value`, or x4 itself when nothing is padded.
Tensor padded(const Tensor& x4, const PoolGeometry& g, double value) {
  const detail::Window2d& w = g.win;
  if (!w.ph && !w.pw && !w.extra_h && !w.extra_w) return x4;
  return detail::pad2d(x4, w.ph, w.ph + w.extra_h, w.pw, w.pw + w.extra_w, value);
}

// The divisor of each output cell of avg_pool2d, [OH, OW], by torch's rule
// (AvgPoolKernel.cpp): the window clipped to the padded input (count_include_pad) or to
// the input itself.
Tensor avg_divisors(const PoolGeometry& g, bool count_include_pad, const TensorOptions& on) {
  const detail::Window2d& w = g.win;
  // Every window whole (no padding, no ceil_mode overhang), or counted with its padding and
  // not past it: one count. Built on the device, as the counts below: a divisor made on the
  // host would be a blocking copy (a wait for the stream) in every call (the profiler
  // showed 4 ms per LeNet avg_pool2d).
  if ((!w.ph && !w.pw && !w.extra_h && !w.extra_w) ||
      (count_include_pad && !w.extra_h && !w.extra_w))
    return full({g.oh, g.ow}, static_cast<double>(w.kh * w.kw), on);
  // Otherwise each window's count of the positions it may count, as a window sum of ones:
  // the input's (zeros in the padding), or the padded input's (zeros past it only). Small
  // integers, exact in every accumulate type.
  const Tensor counted = count_include_pad
                             ? detail::pad2d(ones({1, 1, g.h + 2 * w.ph, g.w + 2 * w.pw}, on), 0,
                                             w.extra_h, 0, w.extra_w, 0.0)
                             : padded(ones({1, 1, g.h, g.w}, on), g, 0.0);
  return detail::window_sum(counted, w, g.oh, g.ow).reshape({g.oh, g.ow});
}

Pool2dArgs pool_args(const PoolGeometry& g) {
  const detail::Window2d& w = g.win;
  return {g.n, g.c, g.h, g.w, w.kh, w.kw, w.sh, w.sw, w.ph, w.pw, w.dh, w.dw, g.oh, g.ow};
}

// Whether x4's backend has both pooling kernels `forward` and `backward` for its dtype
// (Backend::pool2d); not for an empty batch (kernels see no empty views).
bool pool_by_kernels(const Tensor& x4, const PoolGeometry& g, Pool2dOp forward, Pool2dOp backward) {
  const detail::Storage& on = detail::storage_of(x4);
  return g.n > 0 && detail::calls::has_kernel(on, forward, x4.dtype()) &&
         detail::calls::has_kernel(on, backward, x4.dtype());
}

// max_pool2d on the backend's kernels: y [N, C, OH, OW] and each window's index in its plane.
std::pair<Tensor, Tensor> max_pool_kernel(const Tensor& x4, const PoolGeometry& g) {
  const Tensor x = x4.contiguous();
  Tensor y = detail::new_tensor_like({g.n, g.c, g.oh, g.ow}, x.dtype(), x);
  Tensor index = detail::new_tensor_like({g.n, g.c, g.oh, g.ow}, DType::int64, x);
  detail::calls::pool2d(detail::storage_of(y), Pool2dOp::max_forward, pool_args(g),
                        {detail::view_of(x), detail::view_of(y), detail::view_of(index), {}});
  return {y, index};
}

// Its gradient: dL/dx [N, C, H, W] from dL/dy g4 and the forward's indices.
Tensor max_pool_kernel_backward(const Tensor& g4, const Tensor& index, const PoolGeometry& g) {
  const Tensor gy = g4.contiguous();
  Tensor dx = detail::new_tensor_like({g.n, g.c, g.h, g.w}, gy.dtype(), gy);
  detail::calls::pool2d(detail::storage_of(dx), Pool2dOp::max_backward, pool_args(g),
                        {detail::view_of(dx), detail::view_of(gy), detail::view_of(index), {}});
  return dx;
}

// avg_pool2d on the backend's kernels: y [N, C, OH, OW] from x4 and each window's divisor
// ([OH, OW], in the accumulate type).
Tensor avg_pool_kernel(const Tensor& x4, const Tensor& divisor, const PoolGeometry& g) {
  const Tensor x = x4.contiguous();
  Tensor y = detail::new_tensor_like({g.n, g.c, g.oh, g.ow}, x.dtype(), x);
  detail::calls::pool2d(detail::storage_of(y), Pool2dOp::avg_forward, pool_args(g),
                        {detail::view_of(x), detail::view_of(y), {}, detail::view_of(divisor)});
  return y;
}

// Its gradient: dL/dx [N, C, H, W] from dL/dy g4.
Tensor avg_pool_kernel_backward(const Tensor& g4, const Tensor& divisor, const PoolGeometry& g) {
  const Tensor gy = g4.contiguous();
  Tensor dx = detail::new_tensor_like({g.n, g.c, g.h, g.w}, gy.dtype(), gy);
  detail::calls::pool2d(detail::storage_of(dx), Pool2dOp::avg_backward, pool_args(g),
                        {detail::view_of(dx), detail::view_of(gy), {}, detail::view_of(divisor)});
  return dx;
}

}  // namespace

namespace {

// Window-local argmax indices [N, C, OH, OW] (row-major in the window) as positions in the
// input plane, row * W + column: torch's return_indices.
Tensor plane_indices(const Tensor& local, const PoolGeometry& g) {
  const TensorOptions on = TensorOptions(local.device()).dtype(DType::int64);
  // window column b and row a (division of integers is true division: exact here, then cast)
  const Tensor kw = full({}, static_cast<double>(g.win.kw), on);
  const Tensor b = remainder(local, kw);
  const Tensor a = div(local - b, kw).to(DType::int64);
  const Tensor rows = arange(g.oh, on).reshape({g.oh, 1}) * g.win.sh - g.win.ph + a * g.win.dh;
  const Tensor cols = arange(g.ow, on).reshape({1, g.ow}) * g.win.sw - g.win.pw + b * g.win.dw;
  return rows * g.w + cols;
}

// max_pool2d, and with `plane_index` its indices as torch's return_indices (not recorded).
Tensor max_pool2d_impl(const Tensor& input, Size2 kernel, std::optional<Size2> stride,
                       Size2 padding, Size2 dilation, bool ceil_mode, Tensor* plane_index) {
  const detail::prof::Scope op_scope("max_pool2d", input);
  const Tensor x4 = detail::pool_input(input, "max_pool2d");
  detail::check_pool_dtype(input, "max_pool2d");
  const PoolGeometry g = check_pool(x4, "max_pool2d", kernel, stride, padding, dilation, ceil_mode);
  const bool unbatched = input.dim() == 3;
  if (pool_by_kernels(x4, g, Pool2dOp::max_forward,
                      Pool2dOp::max_backward)) {  // the device's kernels (Backend::pool2d)
    Tensor y, index;
    {
      NoGradGuard no_grad;
      std::tie(y, index) = max_pool_kernel(x4, g);
    }
    if (plane_index) *plane_index = unbatched ? index.squeeze(0) : index;
    return detail::record(
        "MaxPool2DWithIndicesBackward", unbatched ? y.squeeze(0) : y, {input}, [&] {
          return [g, index, unbatched](const Tensor& grad) {
            const Tensor dx =
                max_pool_kernel_backward(unbatched ? grad.unsqueeze(0) : grad, index, g);
            return detail::Gradients{unbatched ? dx.squeeze(0) : dx};
          };
        });
  }
  const std::int64_t kk = g.win.kh * g.win.kw;
  const bool grad = detail::needs_grad({&input});
  Tensor out, index;
  {
    NoGradGuard no_grad;
    constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
    // [N, C, KH, KW, OH, OW] -> dense [N, C, OH, OW, KH * KW]: each window one line.
    const auto lines_of = [&](const Tensor& xp) {
      const Tensor win = detail::window_view(xp, g.win, g.oh, g.ow);
      return detail::strided_view(win, {xp.size(0), xp.size(1), g.oh, g.ow, g.win.kh, g.win.kw},
                                  {win.strides()[0], win.strides()[1], win.strides()[4],
                                   win.strides()[5], win.strides()[2], win.strides()[3]},
                                  win.impl()->offset)
          .contiguous()
          .view({xp.size(0), xp.size(1), g.oh, g.ow, kk});
    };
    const Tensor lines = lines_of(padded(x4, g, kMinusInf));
    const Tensor y = max(lines, 4);
    if (grad || plane_index) {
      index = argmax(lines, 4);
      // A window whose maximum is -inf: torch's kernel keeps its first in-bounds element (it
      // starts there; only a greater value or NaN replaces it), where the -inf padding came
      // first here. Windows of padding only keep a padding index: their gradient is dropped
      // (docs/semantics.md row 21).
      const Tensor inside =
          padded(ones({1, 1, g.h, g.w}, TensorOptions(x4.device()).dtype(x4.dtype())), g, 0.0);
      index = where(eq(y, kMinusInf), argmax(lines_of(inside), 4), index);
      if (plane_index) {
        const Tensor planar = plane_indices(index, g);
        *plane_index = unbatched ? planar.squeeze(0) : planar;
      }
    }
    out = input.dim() == 4 ? y : y.squeeze(0);
  }
  return detail::record("MaxPool2DWithIndicesBackward", out, {input}, [&] {
    return [g, index, unbatched = input.dim() == 3](const Tensor& grad) {
      return detail::formulas::max_pool2d(grad, index, g, unbatched);
    };
  });
}

}  // namespace

Tensor max_pool2d(const Tensor& input, Size2 kernel, std::optional<Size2> stride, Size2 padding,
                  Size2 dilation, bool ceil_mode) {
  return max_pool2d_impl(input, kernel, stride, padding, dilation, ceil_mode, nullptr);
}

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, Size2 kernel,
                                                  std::optional<Size2> stride, Size2 padding,
                                                  Size2 dilation, bool ceil_mode) {
  Tensor index;
  Tensor y = max_pool2d_impl(input, kernel, stride, padding, dilation, ceil_mode, &index);
  return {std::move(y), std::move(index)};
}

Tensor avg_pool2d(const Tensor& input, Size2 kernel, std::optional<Size2> stride, Size2 padding,
                  bool ceil_mode, bool count_include_pad,
                  std::optional<std::int64_t> divisor_override) {
  const detail::prof::Scope op_scope("avg_pool2d", input);
  const Tensor x4 = detail::pool_input(input, "avg_pool2d");
  detail::check_pool_dtype(input, "avg_pool2d");
  const PoolGeometry g = check_pool(x4, "avg_pool2d", kernel, stride, padding, 1, ceil_mode);
  if (divisor_override && *divisor_override <= 0)
    throw ValueError("avg_pool2d: divisor must be not zero, got " +
                     std::to_string(*divisor_override));
  const bool unbatched = input.dim() == 3;
  const DType t = x4.dtype();
  // 16-bit inputs are summed and divided in float32 and rounded once (docs/semantics.md
  // row 20, as torch's accumulate type; issue #44: float16 sums overflowed and cancelled).
  const DType acc = t == DType::float16 || t == DType::bfloat16 ? DType::float32 : t;
  if (pool_by_kernels(x4, g, Pool2dOp::avg_forward, Pool2dOp::avg_backward)) {
    Tensor y, divisor;
    {
      NoGradGuard no_grad;
      const TensorOptions on = TensorOptions(x4.device()).dtype(acc);
      if (divisor_override)
        divisor = full({g.oh, g.ow}, static_cast<double>(*divisor_override), on);
      else
        divisor = avg_divisors(g, count_include_pad, on);
      y = avg_pool_kernel(x4, divisor, g);
    }
    return detail::record("AvgPool2DBackward", unbatched ? y.squeeze(0) : y, {input}, [&] {
      return [g, divisor, unbatched](const Tensor& grad) {
        const Tensor dx =
            avg_pool_kernel_backward(unbatched ? grad.unsqueeze(0) : grad, divisor, g);
        return detail::Gradients{unbatched ? dx.squeeze(0) : dx};
      };
    });
  }
  Tensor out, divisor;
  {
    NoGradGuard no_grad;
    const Tensor xp = padded(acc == t ? x4 : x4.to(acc), g, 0.0);
    const Tensor sums = detail::window_sum(xp, g.win, g.oh, g.ow);  // [N, C, OH, OW]
    Tensor d;
    if (divisor_override)
      d = full({}, static_cast<double>(*divisor_override), TensorOptions(x4.device()).dtype(acc));
    else if (count_include_pad && !g.win.extra_h && !g.win.extra_w)
      d = full({}, static_cast<double>(g.win.kh * g.win.kw), TensorOptions(x4.device()).dtype(acc));
    else
      d = avg_divisors(g, count_include_pad, TensorOptions(xp.device()).dtype(acc));
    const Tensor y = acc == t ? sums / d : (sums / d).to(t);
    out = input.dim() == 4 ? y : y.squeeze(0);
    divisor = d;  // in the accumulate type: counts above 256 (bfloat16) are not exact in 16 bits
  }
  return detail::record("AvgPool2DBackward", out, {input}, [&] {
    return [g, divisor, unbatched](const Tensor& grad) {
      return detail::formulas::avg_pool2d(grad, divisor, g, unbatched);
    };
  });
}

}  // namespace hetero
