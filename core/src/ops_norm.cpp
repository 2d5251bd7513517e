// SPDX-License-Identifier: Apache-2.0
// vector_norm, norm(x, p, dim) and normalize (<hetero/norms.hpp>), as torch 1.13's
// linalg_vector_norm (aten/src/ATen/native/LinearAlgebra.cpp) with its backward
// (norm_backward, torch/csrc/autograd/FunctionsManual.cpp), and F.normalize.
#include <hetero/norms.hpp>

#include <cmath>
#include <optional>
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "autograd/record.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

namespace {

// The reduction's layout: the kept dimensions first, then the reduced ones, flattened into
// one last dimension of `count` elements.
struct ReducePlan {
  std::vector<std::int64_t> perm;  // kept dimensions, then the reduced ones
  Shape kept;                      // the kept dimensions' sizes: the result without keepdim
  Shape keep_shape;                // x's shape with the reduced dimensions as 1
  std::int64_t count = 1;          // elements reduced into each result
};

ReducePlan plan_of(const Tensor& x, const std::vector<std::int64_t>& dims) {
  const std::int64_t nd = x.dim();
  std::vector<bool> reduced(static_cast<std::size_t>(nd), dims.empty());
  for (const std::int64_t d : dims) {
    const std::int64_t w = detail::wrap_dim(d, nd, "linalg.vector_norm");
    if (nd == 0) continue;  // a 0-d tensor takes 0 and -1: its one element
    if (reduced[static_cast<std::size_t>(w)])
      throw ValueError("linalg.vector_norm: dim " + std::to_string(w) +
                       " appears multiple times in the list of dims (as torch)");
    reduced[static_cast<std::size_t>(w)] = true;
  }
  ReducePlan p;
  for (std::int64_t d = 0; d < nd; ++d)
    if (!reduced[static_cast<std::size_t>(d)]) {
      p.perm.push_back(d);
      p.kept.push_back(x.size(d));
    }
  for (std::int64_t d = 0; d < nd; ++d) {
    const bool r = reduced[static_cast<std::size_t>(d)];
    if (r) {
      p.perm.push_back(d);
      p.count *= x.size(d);
    }
    p.keep_shape.push_back(r ? 1 : x.size(d));
  }
  return p;
}

// t (x's shape) as [kept..., count]: each result's elements on one line.
Tensor lines_of(const Tensor& t, const ReducePlan& p) {
  Shape s = p.kept;
  s.push_back(p.count);
  return t.permute(p.perm).reshape(s);
}

std::string ord_str(double ord) {
  if (std::isinf(ord)) return ord > 0 ? "inf" : "-inf";
  return detail::format_double(ord);
}

// The norm of each line of x (computed type), shaped [kept...].
Tensor norm_of_lines(const Tensor& x, const ReducePlan& p, double ord) {
  const Tensor l = lines_of(x, p);
  const Tensor a = abs(l);
  if (std::isinf(ord)) return ord > 0 ? max(a, -1) : min(a, -1);
  if (ord == 0.0) return sum(ne(l, 0.0).to(x.dtype()), -1);
  if (ord == 1.0) return sum(a, -1);
  if (ord == 2.0) return sqrt(sum(a * a, -1));
  return pow(sum(pow(a, ord), -1), 1.0 / ord);
}

// torch's norm_backward: the gradient of x (computed type) from the result's gradient `gk`
// and the norm `nk`, both shaped keep_shape.
Tensor norm_gradient(const Tensor& x, const Tensor& gk, const Tensor& nk, const ReducePlan& p,
                     double ord) {
  if (ord == 0.0) return zeros_like(x);
  if (ord == 1.0) return sign(x) * gk;
  if (ord == 2.0) return gk * where(eq(nk, 0.0), 0.0, x / nk);
  if (std::isinf(ord)) {
    // Shared among the elements equal to the norm, or NaN.
    const Tensor mask = logical_or(eq(abs(x), nk), isnan(x)).to(x.dtype());
    const Tensor count = sum(lines_of(mask, p), -1).reshape(p.keep_shape);
    return sign(x) * ((gk / count) * mask);
  }
  if (ord < 1.0) {
    const Tensor scaled = where(eq(x, 0.0), 0.0, sign(x) * pow(abs(x), ord - 1));
    return scaled * gk * pow(nk, 1 - ord);
  }
  const Tensor scaled = ord < 2.0 ? sign(x) * pow(abs(x), ord - 1) : x * pow(abs(x), ord - 2);
  return scaled * where(eq(nk, 0.0), 0.0, gk / pow(nk, ord - 1));
}

}  // namespace

Tensor vector_norm(const Tensor& x, double ord, const std::vector<std::int64_t>& dims,
                   bool keepdim) {
  const detail::prof::Scope op_scope("vector_norm", x);
  detail::impl_of(x, "linalg.vector_norm");
  if (!is_floating_point(x.dtype()))
    throw DTypeError(
        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got " +
        std::string(dtype_name(x.dtype())) + " (as torch)");
  if (std::isnan(ord)) throw ValueError("linalg.vector_norm: the order is NaN");
  const ReducePlan p = plan_of(x, dims);
  if (p.count == 0 && (ord < 0.0 || std::isinf(ord)))
    throw ValueError("linalg.vector_norm cannot compute the " + ord_str(ord) +
                     " norm on an empty dimension because the operation does not have an "
                     "identity (as torch)");
  const DType t = x.dtype();
  const bool narrow = t == DType::float16 || t == DType::bfloat16;
  const DType c = narrow ? DType::float32 : t;
  Tensor nk;  // the norm in the computed type, keep_shape
  const Tensor out = detail::untracked([&] {
    const Tensor xc = x.to(c);
    nk = norm_of_lines(xc, p, ord).reshape(p.keep_shape);
    const Tensor r = keepdim ? nk : nk.reshape(p.kept);
    return narrow ? r.to(t) : r;
  });
  return detail::record("LinalgVectorNormBackward", out, {x}, [&] {
    return [xs = detail::saved(x), ns = nk, p, ord, c](const Tensor& g) {
      const Tensor gk = g.to(c).reshape(p.keep_shape);
      return detail::Gradients{norm_gradient(xs.to(c), gk, ns, p, ord).to(xs.dtype())};
    };
  });
}

Tensor norm(const Tensor& x, double p, std::int64_t dim, bool keepdim) {
  return vector_norm(x, p, {dim}, keepdim);
}

Tensor normalize(const Tensor& x, double p, std::int64_t dim, double eps) {
  const detail::prof::Scope op_scope("normalize", x);
  return x / clamp(vector_norm(x, p, {dim}, true), eps, std::nullopt);
}

}  // namespace hetero
