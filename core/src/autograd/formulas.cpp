// SPDX-License-Identifier: Apache-2.0
#include "formulas.hpp"

#include <hetero/ops.hpp>

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
