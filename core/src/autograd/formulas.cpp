// SPDX-License-Identifier: Apache-2.0
#include "formulas.hpp"

#include <hetero/factories.hpp>
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
  const Tensor hit = eq(index.unsqueeze(4), arange(kk, TensorOptions(index.device())));
  const Tensor lines = where(hit, g4.unsqueeze(4), 0.0).contiguous();  // [N, C, OH, OW, KK]
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

}  // namespace hetero::detail::formulas
