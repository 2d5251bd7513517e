// SPDX-License-Identifier: Apache-2.0
// Strided window views and their adjoint (Note [Convolution as GEMM], window_views.hpp).
#include "window_views.hpp"

#include <hetero/autograd.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "backend_calls.hpp"
#include "op_helpers.hpp"
#include "tensor_impl.hpp"

namespace hetero::detail {

Tensor unpad(const Tensor& dxp, const WindowGeometry& g) {
  if (dxp.size(2) == g.h && dxp.size(3) == g.w) return dxp;
  return dxp.narrow(2, g.win.ph, g.h).narrow(3, g.win.pw, g.w).contiguous();
}

Tensor pad2d(const Tensor& x, std::int64_t top, std::int64_t bottom, std::int64_t left,
             std::int64_t right, double value) {
  NoGradGuard no_grad;
  const Shape& s = x.shape();
  const std::int64_t h = s[2], w = s[3];
  Tensor out = full({s[0], s[1], h + top + bottom, w + left + right}, value,
                    TensorOptions(x.device()).dtype(x.dtype()));
  if (x.numel() > 0) out.narrow(2, top, h).narrow(3, left, w).copy_(x);
  return out;
}

Tensor window_view(const Tensor& xp, const Window2d& w, std::int64_t oh, std::int64_t ow) {
  const Shape& s = xp.shape();
  const auto& st = xp.strides();
  return strided_view(xp, {s[0], s[1], w.kh, w.kw, oh, ow},
                      {st[0], st[1], w.dh * st[2], w.dw * st[3], w.sh * st[2], w.sw * st[3]},
                      xp.impl()->offset);
}

namespace {
// Slice (i, j) of the kernel dimensions of a 6-d window tensor: [N, C, OH, OW].
Tensor kernel_slice(const Tensor& cols, std::int64_t i, std::int64_t j) {
  const Shape& s = cols.shape();
  const auto& st = cols.strides();
  return strided_view(cols, {s[0], s[1], s[4], s[5]}, {st[0], st[1], st[4], st[5]},
                      cols.impl()->offset + i * st[2] + j * st[3]);
}
}  // namespace

Tensor window_sum(const Tensor& xp, const Window2d& w, std::int64_t oh, std::int64_t ow) {
  NoGradGuard no_grad;
  const Tensor win = window_view(xp, w, oh, ow);
  Tensor sum = kernel_slice(win, 0, 0).contiguous();
  for (std::int64_t i = 0; i < w.kh; ++i)
    for (std::int64_t j = 0; j < w.kw; ++j)
      if (i || j) sum = sum + kernel_slice(win, i, j);
  return sum;
}

Tensor fold_windows(const Tensor& cols, const Window2d& w, std::int64_t hp, std::int64_t wp) {
  NoGradGuard no_grad;
  const Shape& s = cols.shape();
  const std::int64_t n = s[0], c = s[1], oh = s[4], ow = s[5];
  Tensor out = zeros({n, c, hp, wp}, TensorOptions(cols.device()).dtype(cols.dtype()));
  if (out.numel() == 0 || cols.numel() == 0) return out;
  // Windows overlap along a dimension when the stride is shorter than the dilated kernel.
  const bool overlap = w.sh < w.dh * (w.kh - 1) + 1 || w.sw < w.dw * (w.kw - 1) + 1;
  for (std::int64_t i = 0; i < w.kh; ++i)
    for (std::int64_t j = 0; j < w.kw; ++j) {
      const Tensor part = kernel_slice(cols, i, j);
      Tensor place = strided_view(out, {n, c, oh, ow}, {c * hp * wp, hp * wp, w.sh * wp, w.sw},
                                  i * w.dh * wp + j * w.dw);
      // Without overlap every element of `out` is written at most once, by this copy; with
      // it, the slice is added in place (Backend::binary allows out to be the view `a`).
      if (overlap)
        calls::binary(storage_of(out), BinaryOp::add, view_of(place), view_of(part),
                      view_of(place));
      else
        place.copy_(part);
    }
  return out;
}

std::string size2_str(Size2 p) { return shape_str({p.h, p.w}); }

std::int64_t checked_geometry(
    const char* op, std::initializer_list<std::int64_t> terms,
    std::initializer_list<std::pair<std::int64_t, std::int64_t>> products) {
  std::int64_t total = 0;
  bool overflow = false;
  for (std::int64_t t : terms) overflow = overflow || __builtin_add_overflow(total, t, &total);
  for (const auto& [a, b] : products) {
    std::int64_t p = 0;
    overflow =
        overflow || __builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(total, p, &total);
  }
  if (overflow)
    throw ShapeError(std::string(op) +
                     ": the window geometry (size, padding, dilation, kernel, stride) overflows "
                     "int64 (torch: integer out of range)");
  return total;
}

std::int64_t pooled_size(std::int64_t in, std::int64_t k, std::int64_t pad, std::int64_t stride,
                         std::int64_t dil, bool ceil_mode) {
  // Checked (issue #44: a dilation or kernel near 2^62 overflowed into a crash).
  const std::int64_t span =
      checked_geometry("pooling", {in, pad, pad, -1, ceil_mode ? stride - 1 : 0}, {{-dil, k - 1}});
  // Floor division (span may be negative: then the output is empty or negative).
  // (-span - 1) / stride + 1 is ceil(-span / stride) without -span + stride - 1, which
  // overflowed for a kernel near 2^63 (an output of 2^63 - 1 rows, not "too small").
  std::int64_t out = (span >= 0 ? span / stride : -((-span - 1) / stride + 1)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

}  // namespace hetero::detail
