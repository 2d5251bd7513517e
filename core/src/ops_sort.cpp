// SPDX-License-Identifier: Apache-2.0
// sort, argsort, topk (<hetero/sorting.hpp>): Batcher's bitonic sorting network over
// (value, index) pairs of each row, padded to a power of 2 with entries that order last.
// Every stage pairs position i with i ^ j and keeps, at each position, the pair's first or
// last in the total order "value (NaN last ascending, first descending), then index": a
// strict order without ties, so the network's result is the stable sort. Each stage is a few
// index_selects, comparisons and wheres: kernels every backend has.
#include <hetero/sorting.hpp>

#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {
namespace {

// Whether pair (a, ia) comes before (b, ib): pads (index >= n) last, then the value order,
// then the index.
Tensor precedes(const Tensor& a, const Tensor& ia, const Tensor& b, const Tensor& ib,
                std::int64_t n, bool descending, bool floating) {
  Tensor first = descending ? gt(a, b) : lt(a, b);
  Tensor same = eq(a, b);
  if (floating) {  // NaN: the largest value (torch's order)
    const Tensor nan_a = ne(a, a), nan_b = ne(b, b);
    first = descending ? logical_or(first, logical_and(nan_a, logical_not(nan_b)))
                       : logical_or(first, logical_and(logical_not(nan_a), nan_b));
    same = logical_or(same, logical_and(nan_a, nan_b));
  }
  const Tensor by_value = logical_or(first, logical_and(same, lt(ia, ib)));
  // n as an int64 0-d operand: a double scalar would compare in float32, exact only below 2^24.
  const Tensor limit = detail::scalar_operand(ia, n);
  return logical_and(lt(ia, limit), logical_or(ge(ib, limit), by_value));
}

// The stable sorting permutation of each row of x [R, n] (n >= 1), int64 [R, n].
Tensor sorted_indices(const Tensor& x, bool descending) {
  const std::int64_t rows = x.size(0), n = x.size(1);
  std::int64_t p = 1;
  while (p < n) p *= 2;
  const TensorOptions on = TensorOptions(x.device()).dtype(DType::int64);
  Tensor v = x.dtype() == DType::bool_ ? x.to(DType::uint8) : x;
  if (p > n) v = cat({v, zeros({rows, p - n}, TensorOptions(x.device()).dtype(v.dtype()))}, 1);
  Tensor idx = arange(p, on).unsqueeze(0).expand({rows, p}).contiguous();
  const bool floating = is_floating_point(v.dtype());
  std::vector<std::int64_t> partner(static_cast<std::size_t>(p));
  std::vector<std::uint8_t> take_first(static_cast<std::size_t>(p));
  for (std::int64_t k = 2; k <= p; k *= 2)
    for (std::int64_t j = k / 2; j > 0; j /= 2) {
      for (std::int64_t i = 0; i < p; ++i) {
        partner[static_cast<std::size_t>(i)] = i ^ j;
        // The lower position of an ascending block, or the upper of a descending one, keeps
        // the pair's first element.
        take_first[static_cast<std::size_t>(i)] = ((i & j) == 0) == ((i & k) == 0) ? 1 : 0;
      }
      const Tensor other = from_vector(partner, {p}, x.device());
      const Tensor first = from_vector(take_first, {p}, x.device()).to(DType::bool_);
      const Tensor pv = index_select(v, 1, other), pi = index_select(idx, 1, other);
      const Tensor before = precedes(v, idx, pv, pi, n, descending, floating);
      const Tensor keep = where(first, before, logical_not(before));
      v = where(keep, v, pv);
      idx = where(keep, idx, pi);
    }
  return p > n ? idx.narrow(1, 0, n) : idx;
}

// The indices that sort `input` along `dim` (wrapped), shaped as input.
Tensor indices_along(const Tensor& input, std::int64_t dim, bool descending) {
  if (input.numel() == 0)
    return zeros(input.shape(), TensorOptions(input.device()).dtype(DType::int64));
  const Tensor moved = dim == input.dim() - 1 ? input : input.transpose(dim, -1);
  const std::int64_t n = moved.size(-1);
  const Tensor rows = moved.reshape({moved.numel() / n, n});
  const Tensor idx = sorted_indices(rows, descending).reshape(moved.shape());
  return dim == input.dim() - 1 ? idx : idx.transpose(dim, -1);
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& input, std::int64_t dim, bool descending,
                                bool stable) {
  (void)stable;  // always stable (torch allows an unstable request to be)
  const detail::prof::Scope op_scope("sort", input);
  detail::impl_of(input, "sort");
  if (input.dim() == 0) {
    detail::wrap_dim(dim, 1, "sort");
    auto [v, i] = sort(input.reshape({1}), 0, descending, true);
    return {v.reshape({}), i.reshape({})};
  }
  const std::int64_t d = detail::wrap_dim(dim, input.dim(), "sort");
  Tensor idx;
  {
    NoGradGuard no_grad;  // the network's intermediates record nothing
    idx = indices_along(input, d, descending);
  }
  return {gather(input, d, idx), idx};
}

Tensor argsort(const Tensor& input, std::int64_t dim, bool descending, bool stable) {
  return std::get<1>(sort(input, dim, descending, stable));
}

std::tuple<Tensor, Tensor> topk(const Tensor& input, std::int64_t k, std::int64_t dim, bool largest,
                                bool sorted) {
  (void)sorted;  // always sorted
  const detail::prof::Scope op_scope("topk", input);
  detail::impl_of(input, "topk");
  if (input.dim() > 0 && input.dtype() == DType::bool_)  // (torch's 0-d path has no kernel)
    throw DTypeError(
        "topk: not defined for a bool tensor (as torch's \"topk_cpu\" not "
        "implemented for 'Bool'); sort it, or convert first, e.g. "
        "x.to(DType::uint8)");
  const std::int64_t d = detail::wrap_dim(dim, std::max<std::int64_t>(input.dim(), 1), "topk");
  const std::int64_t size = input.dim() == 0 ? 1 : input.size(d);
  if (k < 0 || k > size)
    throw IndexError("topk: k = " + std::to_string(k) +
                     " is out of range for a dimension of size " + std::to_string(size) +
                     " (as torch: \"selected index k out of range\")");
  if (input.dim() == 0) return sort(input, d, largest, true);  // k 0 or 1: torch gives x too
  Tensor idx;
  {
    NoGradGuard no_grad;
    idx = indices_along(input, d, largest).narrow(d, 0, k).contiguous();
  }
  return {gather(input, d, idx), idx};
}

}  // namespace hetero
