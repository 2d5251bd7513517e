// SPDX-License-Identifier: Apache-2.0
#include "formulas.hpp"

#include <cmath>
#include <limits>

#include <hetero/autograd.hpp>
#include <hetero/factories.hpp>
#include <hetero/manipulation.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"
#include "../tensor_impl.hpp"

#include "record.hpp"

namespace hetero::detail::formulas {

Gradients cast(const Tensor& g, DType from) { return {g.to(from)}; }
Gradients softmax(const Tensor& g, const Tensor& y, std::int64_t dim) {
  return {y * (g - (g * y).sum(dim, true))};
}
Gradients log_softmax(const Tensor& g, const Tensor& y, std::int64_t dim) {
  return {g - hetero::exp(y) * g.sum(dim, true)};
}
Gradients sum_all(const Tensor& g, const Shape& shape) { return {expand_to(g, shape)}; }
Gradients mean_all(const Tensor& g, const Shape& shape, std::int64_t count) {
  return {expand_to(g / static_cast<double>(count), shape)};
}
Gradients norm(const Tensor& g, const Tensor& x, const Tensor& y) {
  // Where y = 0, x is all zeros: dividing by 1 there gives the 0 torch gives.
  return {x * (g / (y + (1.0 - nonzero_mask(y))))};
}

Gradients cat(const Tensor& g, std::int64_t dim, const std::vector<std::int64_t>& sizes,
              const std::vector<DType>& dtypes) {
  Gradients grads;
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] < 0) {  // a skipped empty 1-D input: an empty gradient
      grads.push_back(full({0}, 0.0, TensorOptions(g.device()).dtype(dtypes[k])));
      continue;
    }
    grads.push_back(g.narrow(dim, offset, sizes[k]).to(dtypes[k]).contiguous());
    offset += sizes[k];
  }
  return grads;
}

Gradients clamp(const Tensor& g, const Tensor& x, const Tensor& lo, const Tensor& hi) {
  const Tensor zero = scalar_operand(g, 0.0);
  Tensor inside, to_min, to_max;
  if (lo.defined()) inside = ge(x, lo);
  if (hi.defined()) inside = inside.defined() ? logical_and(inside, le(x, hi)) : le(x, hi);
  if (lo.defined()) to_min = hi.defined() ? logical_and(lt(x, lo), lt(lo, hi)) : lt(x, lo);
  if (hi.defined()) to_max = lo.defined() ? logical_or(gt(x, hi), lt(hi, lo)) : gt(x, hi);
  return {unbroadcast(where(inside, g, zero), x.shape()),
          lo.defined() ? unbroadcast(where(to_min, g, zero), lo.shape()) : Tensor(),
          hi.defined() ? unbroadcast(where(to_max, g, zero), hi.shape()) : Tensor()};
}

Gradients max_pool2d(const Tensor& g, const Tensor& index, const WindowGeometry& geom,
                     bool unbatched) {
  const Tensor g4 = unbatched ? g.unsqueeze(0) : g;
  const std::int64_t kk = geom.win.kh * geom.win.kw;
  // Each window's line [N, C, OH, OW, KK]: g at the window's argmax, 0 elsewhere, by one
  // scatter along the last dimension (a fiber of one element per window: no order to keep).
  Tensor lines =
      zeros({geom.n, geom.c, geom.oh, geom.ow, kk}, TensorOptions(g.device()).dtype(g.dtype()));
  detail::scatter_add_into(lines, 4, index.unsqueeze(4), g4.unsqueeze(4));
  const auto& s = lines.strides();
  const Tensor cols =
      strided_view(lines, {geom.n, geom.c, geom.win.kh, geom.win.kw, geom.oh, geom.ow},
                   {s[0], s[1], geom.win.kw, 1, s[2], s[3]}, 0);
  const Tensor dx = unpad(fold_windows(cols, geom.win, geom.padded_h(), geom.padded_w()), geom);
  return {unbatched ? dx.squeeze(0) : dx};
}

Gradients avg_pool2d(const Tensor& g, const Tensor& divisor, const WindowGeometry& geom,
                     bool unbatched) {
  const Tensor share = ((unbatched ? g.unsqueeze(0) : g) / divisor).contiguous();
  const auto& s = share.strides();
  // Every element of a window receives the window's share: the share seen with 0 strides
  // over the kernel dimensions.
  const Tensor cols =
      strided_view(share, {geom.n, geom.c, geom.win.kh, geom.win.kw, geom.oh, geom.ow},
                   {s[0], s[1], 0, 0, s[2], s[3]}, share.impl()->offset);
  const Tensor dx = unpad(fold_windows(cols, geom.win, geom.padded_h(), geom.padded_w()), geom)
                        .to(g.dtype());  // from float32 for 16-bit inputs
  return {unbatched ? dx.squeeze(0) : dx};
}

Gradients matmul(const Tensor& g, const Tensor& a, const Tensor& b) {
  const Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
  Tensor g2 = g;
  if (a.dim() == 1 && b.dim() == 1)
    g2 = g.reshape({1, 1});
  else if (a.dim() == 1)
    g2 = g.unsqueeze(-2);
  else if (b.dim() == 1)
    g2 = g.unsqueeze(-1);
  const Tensor ga =
      unbroadcast(hetero::matmul(g2, b2.transpose(-1, -2)), a2.shape()).reshape(a.shape());
  const Tensor gb =
      unbroadcast(hetero::matmul(a2.transpose(-1, -2), g2), b2.shape()).reshape(b.shape());
  return {ga, gb};
}

// ---- views and copies
Gradients to_device(const Tensor& g, const Device& from) { return {g.to(from)}; }
Gradients identity(const Tensor& g) { return {g}; }
Gradients view(const Tensor& g, const Shape& from) { return {g.reshape(from)}; }
Gradients transpose(const Tensor& g, std::int64_t d0, std::int64_t d1) {
  return {g.transpose(d0, d1)};
}
Gradients unsqueeze(const Tensor& g, std::int64_t d) { return {g.squeeze(d)}; }
Gradients squeeze(const Tensor& g, std::int64_t d) { return {g.unsqueeze(d)}; }
Gradients narrow(const Tensor& g, const Shape& from, std::int64_t d, std::int64_t start,
                 std::int64_t length) {
  Tensor full = zeros(from, TensorOptions(g.device()).dtype(g.dtype()));
  full.narrow(d, start, length).copy_(g);
  return {full};
}
Gradients select(const Tensor& g, const Shape& from, std::int64_t index) {
  Tensor full = zeros(from, TensorOptions(g.device()).dtype(g.dtype()));
  full[index].copy_(g);
  return {full};
}
Gradients permute(const Tensor& g, const std::vector<std::int64_t>& inverse) {
  return {g.permute(inverse)};
}
Gradients expand(const Tensor& g, const Shape& from) { return {unbroadcast(g, from)}; }

// ---- reductions
namespace {
// g of a reduction over `dim` (kept or squeezed) broadcast back to the input's shape.
Tensor spread(const Tensor& g, const Shape& in_shape, std::int64_t dim, bool keepdim) {
  if (in_shape.empty()) return g.reshape({});
  const Tensor kept =
      keepdim ? g : g.unsqueeze(wrap_dim(dim, static_cast<std::int64_t>(in_shape.size()), "sum"));
  return expand_to(kept, in_shape);
}
// g shared evenly among the elements equal to y; a NaN y is the NaNs' (torch's
// evenly_distribute_backward, the gradient of max() and min()).
Tensor extreme_share(const Tensor& g, const Tensor& x, const Tensor& y) {
  const Tensor at_extreme = logical_or(eq(x, y), logical_and(isnan(x), isnan(y))).to(x.dtype());
  return g * at_extreme / at_extreme.sum();
}
// prod_{j != i} x_j along d for every i, as torch's prod_safe_zeros_backward: the product
// of the elements before i times that of the elements after it, each an exclusive scan
// (Hillis and Steele's, as cumsum's: log2(n) passes of narrow, mul and cat, so every backend
// runs it; torch's cumprod multiplies left to right, the same values up to rounding).
Tensor exclusive_products(const Tensor& x, std::int64_t d) {
  const std::int64_t n = x.size(d);
  const auto exclusive_scan = [n, d](const Tensor& t) {
    Tensor s = hetero::cat({ones_like(t.narrow(d, 0, 1)), t.narrow(d, 0, n - 1)}, d);
    for (std::int64_t shift = 1; shift < n; shift *= 2)
      s = hetero::cat(
          {s.narrow(d, 0, shift), s.narrow(d, shift, n - shift) * s.narrow(d, 0, n - shift)}, d);
    return s;
  };
  return exclusive_scan(x) * hetero::flip(exclusive_scan(hetero::flip(x, {d})), {d});
}

// d(prod)/dx_i over `dim` (kept) or every element, as torch's prod_backward: y / x_i when
// no element of x is 0, else the product of the others (exclusive_products), which an inf
// or NaN among them makes inf or NaN where y / x_i is NaN at the inf itself. The product of
// every element with two zeros or more gives zeros (torch's shortcut there). Which of the
// two x has is decided on the device (a 0-d flag in a where): no host read.
Tensor prod_share(const Tensor& g, const Tensor& x, const Tensor& y,
                  std::optional<std::int64_t> dim) {
  if (x.numel() == 0) return zeros_like(x);
  const Tensor zeros = hetero::sum(eq(x, 0.0));
  const Tensor others = dim ? exclusive_products(x, *dim)
                            : exclusive_products(x.reshape({x.numel()}), 0).reshape(x.shape());
  const Tensor with_a_zero = dim ? others : where(ge(zeros, 2.0), 0.0, others);
  return where(gt(zeros, 0.0), with_a_zero, y / x) * g;
}
}  // namespace

Gradients sum_dim(const Tensor& g, const Shape& in_shape, std::int64_t dim, bool keepdim) {
  return {spread(g, in_shape, dim, keepdim)};
}
Gradients mean_dim(const Tensor& g, const Shape& in_shape, std::int64_t dim, bool keepdim) {
  const std::int64_t count = in_shape.empty()
                                 ? 1
                                 : in_shape[static_cast<std::size_t>(wrap_dim(
                                       dim, static_cast<std::int64_t>(in_shape.size()), "mean"))];
  return {spread(g / static_cast<double>(count), in_shape, dim, keepdim)};
}
Gradients extreme_all(const Tensor& g, const Tensor& x, const Tensor& y) {
  return {extreme_share(g, x, y)};
}
Gradients selected_dim(const Tensor& g, const Tensor& x, const Tensor& index, std::int64_t dim,
                       bool keepdim) {
  if (x.dim() == 0) return {g.reshape({})};
  dim = wrap_dim(dim, x.dim(), "max");
  const Tensor kept = keepdim ? g : g.unsqueeze(dim);
  Shape along(static_cast<std::size_t>(x.dim()), 1);
  along[static_cast<std::size_t>(dim)] = x.size(dim);
  const Tensor positions =
      arange(x.size(dim), TensorOptions(x.device()).dtype(DType::int64)).reshape(along);
  const Tensor chosen = eq(positions, index);  // [..., n, ...]
  return {where(chosen, expand_to(kept, x.shape()), 0.0)};
}
Gradients prod(const Tensor& g, const Tensor& x, const Tensor& y, std::optional<std::int64_t> dim,
               bool keepdim) {
  if (!dim || x.dim() == 0) return {prod_share(g, x, y, std::nullopt)};
  // Broadcast the kept dimension back (the forward may have squeezed it).
  const Tensor gk = keepdim ? g : g.unsqueeze(*dim);
  const Tensor yk = keepdim ? y : y.unsqueeze(*dim);
  return {prod_share(gk, x, yk, dim)};
}
Gradients var(const Tensor& g, const Tensor& centred, double factor) {
  return {g * centred * factor};
}
Gradients sqrt_at_zero(const Tensor& g, const Tensor& y) {
  return {where(eq(y, 0.0), 0.0, g / (2 * y))};
}

// ---- activations
namespace {
// f(g, x) with 16-bit operands widened to float32 and the result rounded back to g's dtype.
template <class F>
Gradients widened(const Tensor& g, const Tensor& x, F f) {
  const bool half = g.dtype() == DType::float16 || g.dtype() == DType::bfloat16;
  if (!half) return {f(g, x)};
  return {f(g.to(DType::float32), x.to(DType::float32)).to(g.dtype())};
}
}  // namespace

Gradients gelu(const Tensor& g, const Tensor& x, bool tanh_form) {
  return widened(g, x, [tanh_form](const Tensor& dy, const Tensor& v) {
    if (tanh_form) {
      // torch's (1 + t) / 2 + x / 2 (1 - t^2) u' with t = tanh(u), as s + 2 x s (1 - s) u'
      // with s = sigmoid(2u) and 1 - s = sigmoid(-2u): no cancellation where t is near -1 or 1
      // (the forward's form).
      const Tensor x_sq = v * v;
      const Tensor u2 = (v + x_sq * v * kGeluKappa) * (2.0 * kGeluBeta);
      const Tensor s = hetero::sigmoid(u2), rest = hetero::sigmoid(-u2);
      const Tensor inner_derivative = kGeluBeta * (1.0 + 3.0 * kGeluKappa * x_sq);
      return dy * (s + 2.0 * v * s * rest * inner_derivative);
    }
    const Tensor cdf = 0.5 * (1.0 + hetero::erf(v * M_SQRT1_2));
    const Tensor pdf = hetero::exp(v * v * -0.5) * (M_2_SQRTPI * M_SQRT1_2 * 0.5);
    return dy * (cdf + v * pdf);
  });
}
Gradients silu(const Tensor& g, const Tensor& x) {
  return widened(g, x, [](const Tensor& dy, const Tensor& v) {
    const Tensor s = 1.0 / (1.0 + hetero::exp(-v));
    return dy * s * (1.0 + v * (1.0 - s));
  });
}
Gradients leaky_relu(const Tensor& g, const Tensor& x, double negative_slope) {
  return widened(g, x, [negative_slope](const Tensor& dy, const Tensor& v) {
    return where(gt(v, 0.0), dy, dy * negative_slope);
  });
}
Gradients elu(const Tensor& g, const Tensor& x, double negcoef, double poscoef,
              double input_scale) {
  return widened(g, x, [=](const Tensor& dy, const Tensor& v) {
    const Tensor negative = input_scale == 1.0
                                ? dy * negcoef * hetero::exp(v)
                                : dy * input_scale * negcoef * hetero::exp(v * input_scale);
    return where(le(v, 0.0), negative, poscoef == 1.0 ? dy : dy * poscoef);
  });
}
Gradients mish(const Tensor& g, const Tensor& x) {
  return widened(g, x, [](const Tensor& dy, const Tensor& v) {
    const Tensor s = 1.0 / (1.0 + hetero::exp(-v));
    const Tensor t = hetero::tanh(hetero::log1p(hetero::exp(v)));
    return dy * (t + v * s * (1.0 - t * t));
  });
}
Gradients logsigmoid(const Tensor& g, const Tensor& x) {
  return widened(g, x, [](const Tensor& dy, const Tensor& v) {
    const Tensor z = hetero::exp(-hetero::abs(v));
    const Tensor share = z / (1.0 + z);
    return dy * where(lt(v, 0.0), 1.0 - share, share);
  });
}
Gradients hardtanh(const Tensor& g, const Tensor& x, double min_val, double max_val) {
  return widened(g, x, [=](const Tensor& dy, const Tensor& v) {
    return where(logical_or(le(v, min_val), ge(v, max_val)), 0.0, dy);
  });
}
Gradients hardsigmoid(const Tensor& g, const Tensor& x) {
  return widened(g, x, [](const Tensor& dy, const Tensor& v) {
    return where(logical_and(gt(v, -3.0), lt(v, 3.0)), dy * (1.0 / 6.0), 0.0);
  });
}
Gradients hardswish(const Tensor& g, const Tensor& x) {
  return widened(g, x, [](const Tensor& dy, const Tensor& v) {
    // torch's scalar and cuda rule: 1.5 g at x = 3, g at NaN (its cpu vector kernel gives
    // g and NaN there: docs/semantics.md row 62).
    return where(lt(v, -3.0), 0.0, where(le(v, 3.0), dy * (v / 3.0 + 0.5), dy));
  });
}
Gradients softplus(const Tensor& g, const Tensor& x, double beta, double threshold) {
  return widened(g, x, [beta, threshold](const Tensor& dy, const Tensor& v) {
    const Tensor bx = v * beta;
    const Tensor z = hetero::exp(bx);
    return where(gt(bx, threshold), dy, dy * z / (z + 1.0));
  });
}

// ---- convolution
Gradients conv2d(const Tensor& grad, const ConvPlan& p, const ConvSaved& s) {
  const ConvGeometry& g = p.g;
  Gradients grads(3);
  if (p.by_kernels) {
    const Tensor gy = grad.reshape({g.n, g.o, g.oh, g.ow});
    if (s.need_b) {
      // A 16-bit gradient summed as float32 and rounded once, as torch's (two 16-bit sums
      // would round twice); read as it is where the backend sums it into float32.
      const bool narrow = is_half(gy.dtype());
      const Tensor planes = gy.reshape({g.n, g.o, g.oh * g.ow});
      const Tensor sums = (narrow ? planes.sum(2, false, DType::float32) : planes.sum(2)).sum(0);
      grads[2] = narrow ? sums.to(gy.dtype()) : sums;
    }
    if (s.need_w)
      grads[1] = conv_kernel(Conv2dOp::backward_weight, g, gy, p.batched ? s.x : s.x.unsqueeze(0),
                             s.wshape);
    if (s.need_x) {
      const Tensor dx = conv_kernel(Conv2dOp::backward_input, g, gy, s.w, {g.n, g.c, g.h, g.w});
      grads[0] = p.batched ? dx : dx.squeeze(0);
    }
    return grads;
  }
  // The output's gradient channel-major, [O, N OH OW], as the forward GEMM produced it.
  const Tensor gt = grad.reshape({g.n, g.o, g.oh * g.ow})
                        .transpose(0, 1)
                        .contiguous()
                        .view({g.o, g.n * g.oh * g.ow});
  if (s.need_b) grads[2] = gt.sum(1);
  // dW = gt cols^T and dcols = W^T gt, per group.
  if (s.need_w) grads[1] = grouped_matmul(gt, false, s.cols, true, g.groups).reshape(s.wshape);
  if (s.need_x) {
    // dX = fold(dcols): the adjoint of im2col, then the padding cut off.
    const Window2d& w = g.win;
    const Tensor dcols = grouped_matmul(s.wm, true, gt, false, g.groups);  // [C KH KW, N OH OW]
    const std::int64_t l = g.oh * g.ow, s_c = w.kh * w.kw * g.n * l;
    const Tensor cols6 =
        strided_view(dcols, {g.n, g.c, w.kh, w.kw, g.oh, g.ow},
                     {l, s_c, w.kw * g.n * l, g.n * l, g.ow, 1}, dcols.impl()->offset);
    Tensor dx = fold_windows(cols6, w, g.h + 2 * w.ph, g.w + 2 * w.pw);
    if (w.ph || w.pw) dx = dx.narrow(2, w.ph, g.h).narrow(3, w.pw, g.w).contiguous();
    grads[0] = p.batched ? dx : dx.squeeze(0);
  }
  return grads;
}

// ---- indexing
Gradients gather(const Tensor& g, const Shape& shape, std::int64_t d, const Tensor& index) {
  // The index was in range when the gather ran (checked, or by construction), so no second
  // check: the public scatter_add read its min and max from the device, a host wait in every
  // backward of gather, index_select and CrossEntropyLoss.
  Tensor out = zeros(shape, TensorOptions().dtype(g.dtype()).device(g.device()));
  scatter_add_into(out, d, index, g);
  return {out};
}
Gradients scatter_add(const Tensor& g, const Shape& src_shape, std::int64_t d,
                      const Tensor& index) {
  Tensor g_src = hetero::gather(g, d, index);
  if (g_src.shape() != src_shape) {  // src larger than index: zero beyond it
    Tensor full = zeros(src_shape, TensorOptions().dtype(g.dtype()).device(g.device()));
    Tensor part = full;
    for (std::int64_t k = 0; k < g_src.dim(); ++k) part = part.narrow(k, 0, g_src.size(k));
    NoGradGuard no_grad;
    part.copy_(g_src);
    g_src = full;
  }
  return {g, g_src};
}
Gradients scatter_add_nothing(const Tensor& g, const Shape& src_shape) {
  return {g, zeros(src_shape, TensorOptions().dtype(g.dtype()).device(g.device()))};
}
Gradients embedding(const Tensor& g, const Shape& shape, const Tensor& index,
                    std::int64_t padding_idx) {
  Tensor grad =
      hetero::scatter_add(zeros(shape, TensorOptions().dtype(g.dtype()).device(g.device())), 0,
                          index, g.reshape({index.size(0), index.size(1)}));
  if (padding_idx >= 0) {  // the padding row takes no gradient (as torch)
    NoGradGuard no_grad;
    fill(grad.narrow(0, padding_idx, 1), 0.0);
  }
  return {grad};
}

}  // namespace hetero::detail::formulas
