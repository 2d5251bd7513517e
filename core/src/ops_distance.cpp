// SPDX-License-Identifier: Apache-2.0
// cosine_similarity and pairwise_distance (<hetero/distance.hpp>), as torch 1.13's
// (aten/src/ATen/native/Distance.cpp): each operand divided by its norm clamped to eps, then
// the product summed along dim; the norm of x1 - x2 + eps along the last dimension.
#include <hetero/distance.hpp>

#include <algorithm>
#include <optional>
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/norms.hpp>
#include <hetero/ops.hpp>

#include "autograd/record.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "promotion.hpp"

namespace hetero {

namespace {

// max(||x||, eps) along d (kept), with the gradient g x / max(||x||, eps): torch clamps the
// norm in place without recording, so its norm backward divides by the clamped value.
Tensor clamped_norm(const Tensor& x, std::int64_t d, double eps) {
  const Tensor n =
      detail::untracked([&] { return clamp(sqrt(sum(x * x, d, true)), eps, std::nullopt); });
  return detail::record("NormBackward", n, {x}, [&] {
    return [v = detail::saved(x), nc = detail::saved(n)](const Tensor& g) {
      return detail::Gradients{g * v / nc};
    };
  });
}

}  // namespace

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, std::int64_t dim, double eps) {
  const detail::prof::Scope op_scope("cosine_similarity", x1);
  detail::impl_of(x1, "cosine_similarity");
  detail::impl_of(x2, "cosine_similarity");
  detail::check_same_device("cosine_similarity", {&x1, &x2});
  const DType common = detail::result_type(x1.dtype(), x1.dim() == 0, x2.dtype(), x2.dim() == 0);
  if (!is_floating_point(common))
    throw DTypeError(
        "cosine_similarity: expected common dtype to be floating point, yet common "
        "dtype is " +
        std::string(dtype_name(common)) + " (as torch)");
  const Shape shape = detail::broadcast_shapes("cosine_similarity", x1.shape(), x2.shape());
  const std::int64_t d =
      detail::wrap_dim(dim, static_cast<std::int64_t>(shape.size()), "cosine_similarity");
  const bool half = common == DType::float16 || common == DType::bfloat16;
  const DType compute = half ? DType::float32 : common;
  const Tensor a = x1.to(compute).expand(shape), b = x2.to(compute).expand(shape);
  const Tensor out = sum((a / clamped_norm(a, d, eps)) * (b / clamped_norm(b, d, eps)), d);
  return half ? out.to(common) : out;
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const detail::prof::Scope op_scope("pairwise_distance", x1);
  detail::impl_of(x1, "pairwise_distance");
  detail::impl_of(x2, "pairwise_distance");
  const std::int64_t rank = std::max(x1.dim(), x2.dim());
  const Tensor d = x1 - x2 + eps;
  return rank == 0 ? vector_norm(d, p, {}, keepdim) : vector_norm(d, p, {rank - 1}, keepdim);
}

}  // namespace hetero
