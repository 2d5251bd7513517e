// SPDX-License-Identifier: Apache-2.0
// prod: composed from the backends' element-wise mul, neighbours multiplied pairwise, so every
// backend runs it with no reduction kernel of its own (log2(n) passes over a shrinking
// tensor: about 2n element reads in all). Deterministic: the pairing depends on the size
// only. The gradient handles zeros exactly, as torch's prod_backward.
#include <optional>
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "backend_calls.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {
namespace {

// The product along d of t, keeping d (size 1; 1 for an empty t: the identity), in a new
// tensor.
Tensor pairwise_product(Tensor t, std::int64_t d) {
  if (t.size(d) == 0) {
    Shape s = t.shape();
    s[static_cast<std::size_t>(d)] = 1;
    Tensor one = detail::new_tensor_like(s, t.dtype(), t);
    detail::fill(one, std::int64_t{1});
    return one;
  }
  if (t.size(d) == 1) return t.clone();  // a new tensor, never the input itself
  // Neighbours are multiplied (x0 x1, x2 x3, ...), the last element of an odd length
  // carried along: the order of the elements is kept, as torch's left-to-right product
  // keeps it (issue #44: halves paired x0 with x2, and 1e-30 * 1e-30 underflowed to 0 before
  // meeting the inf: prod({1e-30, inf, 1e-30, 2}) was NaN, torch's inf).
  while (t.size(d) > 1) {
    const std::int64_t n = t.size(d), h = n / 2;
    Shape pairs = t.shape();
    pairs[static_cast<std::size_t>(d)] = h;
    pairs.insert(pairs.begin() + d + 1, 2);
    const Tensor p = t.narrow(d, 0, 2 * h).reshape(pairs);
    Tensor m = p.narrow(d + 1, 0, 1).squeeze(d + 1) * p.narrow(d + 1, 1, 1).squeeze(d + 1);
    if (n % 2 != 0) m = cat({m, t.narrow(d, n - 1, 1)}, d);
    t = m;
  }
  return t;
}

// What prod computes in: int64 for bool and integers (torch's result); for the 16-bit floats
// float64 where the device runs it, else float32 (rounded once at the end: in float32 the
// pairwise order overflowed where torch's left-to-right product did not, as bfloat16
// [2.5e38, 3, 1e-4, ...]; the differential test on cuda:0, seed of gpu_check); else the dtype.
DType compute_dtype(const Tensor& a) {
  const DType t = a.dtype();
  if (!is_floating_point(t)) return DType::int64;
  if (t != DType::float16 && t != DType::bfloat16) return t;
  return detail::runs_float64(a, BinaryOp::mul) ? DType::float64 : DType::float32;
}
DType result_dtype(DType t) { return is_floating_point(t) ? t : DType::int64; }

Tensor prod_impl(const Tensor& a, std::optional<std::int64_t> dim, bool keepdim) {
  const detail::prof::Scope op_scope("prod", a);
  detail::impl_of(a, "prod");
  const std::int64_t rank = a.dim() == 0 ? 1 : a.dim();
  const std::optional<std::int64_t> d =
      dim ? std::optional<std::int64_t>(detail::wrap_dim(*dim, rank, "prod")) : std::nullopt;
  const Tensor out = detail::untracked([&] {
    Tensor x = a.to(compute_dtype(a));
    if (!d || a.dim() == 0) x = x.reshape({x.numel()});
    Tensor p = pairwise_product(x, d.value_or(0));
    if (!d || a.dim() == 0)
      p = p.reshape({});
    else if (!keepdim)
      p = p.squeeze(*d);
    return p.to(result_dtype(a.dtype()));
  });
  return detail::record("ProdBackward", out, {a}, [&] {
    return [x = detail::saved(a), y = detail::saved(out), d, keepdim](const Tensor& g) {
      return detail::formulas::prod(g, x, y, d, keepdim);
    };
  });
}

}  // namespace

Tensor prod(const Tensor& a) { return prod_impl(a, std::nullopt, false); }

Tensor prod(const Tensor& a, std::int64_t dim, bool keepdim) { return prod_impl(a, dim, keepdim); }

}  // namespace hetero
