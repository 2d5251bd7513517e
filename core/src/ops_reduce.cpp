// SPDX-License-Identifier: Apache-2.0
// Reductions: the output view keeps the input's rank with size-1 reduced dimensions.
#include <limits>
#include <optional>
#include <set>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "backend_calls.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "reduced_dims.hpp"

namespace hetero {

namespace detail {
ReducedDims reduced_dims(const Shape& shape, const std::vector<std::int64_t>& dims, bool keepdim,
                         const char* op) {
  const auto nd = static_cast<std::int64_t>(shape.size());
  std::set<std::int64_t> seen;
  for (const std::int64_t d : dims) {
    const std::int64_t w = wrap_dim(d, nd, op);
    if (!seen.insert(w).second)
      throw ValueError(std::string(op) + "(): dim " + std::to_string(w) +
                       " appears multiple times in the list of dims " + list_str(dims) +
                       " (as torch)");
  }
  ReducedDims r;
  for (std::int64_t d = 0; d < nd; ++d) {
    const bool reduced = dims.empty() || seen.count(d) > 0;
    if (reduced) r.dims.push_back(d);
    r.kept.push_back(reduced ? 1 : shape[static_cast<std::size_t>(d)]);
    if (reduced) r.count *= shape[static_cast<std::size_t>(d)];
    if (keepdim || !reduced) r.result.push_back(r.kept.back());
  }
  return r;
}
}  // namespace detail

namespace {

const char* reduce_name(ReductionOp op) { return op_name(op).data(); }  // a literal of the table

// The dtype a widening sum hands the backend for `t` (bool as uint8: its bytes are 0 or 1).
DType widening_input(DType t) { return t == DType::bool_ ? DType::uint8 : t; }

// Validates dtype, picks the computation and result dtypes (as torch: sum of bool, int8,
// uint8 and int32 gives int64, reduced as it is where the backend sums into int64
// (Backend::reduces_into) and converted to int64 first elsewhere; mean and norm need floating
// input; argmax gives int64 and refuses bool; max and min of bool give bool, computed in int64
// and converted back by the caller).
Tensor prepare_input(ReductionOp op, const Tensor& a, DType& out_dtype) {
  const char* name = reduce_name(op);
  detail::impl_of(a, name);
  DType t = a.dtype();
  if (op == ReductionOp::sum && (t == DType::bool_ || (is_integral(t) && t != DType::int64)) &&
      a.numel() > 0 &&
      detail::calls::reduces_into(detail::storage_of(a), op, widening_input(t), DType::int64)) {
    out_dtype = DType::int64;
    return a;
  }
  if ((op == ReductionOp::mean || op == ReductionOp::norm) && !is_floating_point(t))
    throw DTypeError(std::string(name) + "(): expected a floating dtype, got " +
                     std::string(dtype_name(t)) + "; cast first (e.g. x.to(DType::float32))");
  if (op == ReductionOp::argmax && t == DType::bool_)
    throw DTypeError(
        "argmax(): not defined for a bool tensor (as torch); convert first, e.g. "
        "x.to(DType::int64)");
  if (op == ReductionOp::sum && (t == DType::bool_ || is_integral(t))) t = DType::int64;
  if ((op == ReductionOp::max || op == ReductionOp::min) && t == DType::bool_) t = DType::int64;
  out_dtype = op == ReductionOp::argmax ? DType::int64 : t;
  return a.to(t);
}

// ShapeError where max, min or argmax (or `name`, the public op: amax, amin) would reduce an
// empty range.
void check_nonempty(ReductionOp op, const Tensor& a, std::int64_t reduced_count,
                    const char* name = nullptr) {
  if ((op == ReductionOp::max || op == ReductionOp::min || op == ReductionOp::argmax) &&
      reduced_count == 0)
    throw ShapeError(std::string(name ? name : reduce_name(op)) +
                     "(): cannot reduce an empty range of tensor of shape " +
                     detail::shape_str(a.shape()));
}

// Reduces `in` into a new tensor of `result_shape`. The backend writes it through a view of
// `kept_shape` (the input's rank, reduced dimensions of size 1); both shapes have the same
// elements in the same order (result_shape is kept_shape with reduced dimensions dropped or
// not), so the result needs no second view made afterwards.
Tensor run(ReductionOp op, const Tensor& in, const Shape& kept_shape, Shape result_shape,
           DType out_dtype) {
  Tensor out = detail::new_tensor_like(std::move(result_shape), out_dtype, in);
  if (out.numel() == 0) return out;
  if (in.numel() == 0) {  // Note [Empty tensors]: the identity (max/min/argmax threw before)
    detail::fill(out, op == ReductionOp::mean ? std::numeric_limits<double>::quiet_NaN() : 0.0);
    return out;
  }
  StridedView from = detail::view_of(in);
  if (from.dtype != out_dtype && op == ReductionOp::sum) from.dtype = widening_input(from.dtype);
  detail::calls::reduce(detail::storage_of(out), op, from,
                        detail::contiguous_view_of(out, kept_shape));
  return out;
}

// max/min of bool computed in int64 come back as bool (as torch).
Tensor as_input_dtype(ReductionOp op, const Tensor& a, Tensor r) {
  return (op == ReductionOp::max || op == ReductionOp::min) && a.dtype() == DType::bool_
             ? r.to(DType::bool_)
             : r;
}

// `in` (a prepared for op) reduced to a 0-D tensor of out_dtype.
Tensor reduce_all_of(ReductionOp op, const Tensor& a, const Tensor& in, DType out_dtype) {
  check_nonempty(op, a, in.numel());
  const Shape ones(in.shape().size(), 1);
  return as_input_dtype(op, a, run(op, in, ones, {}, out_dtype));
}

Tensor reduce_all(ReductionOp op, const Tensor& a) {
  const detail::prof::Scope op_scope(op_name(op), a);
  DType out_dtype;
  const Tensor in = prepare_input(op, a, out_dtype);
  return reduce_all_of(op, a, in, out_dtype);
}

// `in` (a prepared for op) reduced along `dim` into out_dtype.
Tensor reduce_dim_of(ReductionOp op, const Tensor& a, const Tensor& in, DType out_dtype,
                     std::int64_t dim, bool keepdim) {
  if (in.dim() == 0) {
    detail::wrap_dim(dim, 0, reduce_name(op));
    return as_input_dtype(op, a, run(op, in, {}, {}, out_dtype));
  }
  const auto d = static_cast<std::size_t>(detail::wrap_dim(dim, in.dim(), reduce_name(op)));
  check_nonempty(op, a, in.shape()[d]);
  Shape kept = in.shape();
  kept[d] = 1;
  Shape result = kept;
  if (!keepdim) result.erase(result.begin() + static_cast<std::ptrdiff_t>(d));
  return as_input_dtype(op, a, run(op, in, kept, std::move(result), out_dtype));
}

Tensor reduce_dim(ReductionOp op, const Tensor& a, std::int64_t dim, bool keepdim) {
  const detail::prof::Scope op_scope(op_name(op), a);
  DType out_dtype;
  const Tensor in = prepare_input(op, a, out_dtype);
  return reduce_dim_of(op, a, in, out_dtype, dim, keepdim);
}

// `a` reduced over the dimensions `r` names: one backend reduction, which takes any set of
// reduced dimensions (Backend::reduce's layout rule), with no permuted copy.
// `name`: the public op for errors (amax, amin), else reduce_name(op).
Tensor reduce_dims(ReductionOp op, const Tensor& a, const detail::ReducedDims& r,
                   const char* name = nullptr) {
  const detail::prof::Scope op_scope(op_name(op), a);
  DType out_dtype;
  const Tensor in = prepare_input(op, a, out_dtype);
  check_nonempty(op, a, r.count, name);
  return as_input_dtype(op, a, run(op, in, r.kept, r.result, out_dtype));
}

// The layout of a reduction of `a` over `dims`, after a's checks.
detail::ReducedDims layout_of(const Tensor& a, const std::vector<std::int64_t>& dims, bool keepdim,
                              const char* op) {
  detail::impl_of(a, op);
  return detail::reduced_dims(a.shape(), dims, keepdim, op);
}

// g (the result's shape) back to `in_shape`: each result element's gradient to every element
// it reduced.
Tensor spread_dims(const Tensor& g, const Shape& in_shape, const detail::ReducedDims& r) {
  return detail::expand_to(g.reshape(r.kept), in_shape);
}

// max or min over dims (amax, amin), with torch's amax/amin backward: the gradient shared
// evenly among the elements equal to the result.
Tensor extreme_dims(ReductionOp op, const Tensor& a, const std::vector<std::int64_t>& dims,
                    bool keepdim, const char* name) {
  const detail::ReducedDims r = layout_of(a, dims, keepdim, name);
  Tensor out = detail::untracked([&] { return reduce_dims(op, a, r, name); });
  return detail::record(op == ReductionOp::max ? "AmaxBackward" : "AminBackward", out, {a}, [&] {
    return [x = detail::saved(a), y = detail::saved(out), r](const Tensor& g) {
      // (A 0-d x has no dims: the empty list reduces its one element.)
      const Tensor at_extreme = eq(x, y.reshape(r.kept)).to(x.dtype());
      return detail::Gradients{g.reshape(r.kept) * at_extreme / sum(at_extreme, r.dims, true)};
    };
  });
}

// Whether sum or mean of `a` into `dtype` is one kernel on a as it is: a floating tensor
// into a different floating dtype its backend reduces into itself (Backend::reduces_into;
// on cpu float16 and bfloat16 into float32), with no converted copy of a.
bool reduces_directly(ReductionOp op, const Tensor& a, DType dtype) {
  detail::impl_of(a, reduce_name(op));
  return is_floating_point(a.dtype()) && is_floating_point(dtype) && a.dtype() != dtype &&
         a.numel() > 0 && detail::calls::reduces_into(detail::storage_of(a), op, a.dtype(), dtype);
}

void check_mean_dtype(DType dtype) {
  if (!is_floating_point(dtype))
    throw DTypeError(
        "mean(): could not infer output dtype. Optional dtype must be a floating dtype, got " +
        std::string(dtype_name(dtype)) + " (as torch.mean)");
}

// sum or mean of `a` as `dtype` (torch's dtype= argument: a converted to dtype, then
// reduced, the result of exactly that dtype). `whole` reduces a tensor as the dtype-less
// overload does; `direct` runs the one-kernel path of reduces_directly, with its backward.
template <class Whole, class Direct>
Tensor reduce_as(ReductionOp op, const Tensor& a, DType dtype, Whole whole, Direct direct) {
  if (reduces_directly(op, a, dtype)) return direct();
  const Tensor r = whole(a.dtype() == dtype ? a : a.to(dtype));
  // A sum of integers (or bool) is int64: converted back, wrapping as torch's
  // (sum(uint8 [200, 100], dtype=uint8) is 44; of bool, whether any element is set).
  return r.dtype() == dtype ? r : r.to(dtype);
}

// The gradient of a reduction computed from `from` into another dtype, converted back.
detail::Gradients converted(detail::Gradients g, DType from) {
  if (g[0].defined() && g[0].dtype() != from) g[0] = g[0].to(from);
  return g;
}

// reduce_as's direct path: sum or mean of `a` (all elements, or along `dim`) into `dtype` by
// one kernel, recorded with the op's backward, whose gradient goes back to a's dtype.
Tensor reduce_into(ReductionOp op, const Tensor& a, DType dtype, std::optional<std::int64_t> dim,
                   bool keepdim) {
  const bool is_sum = op == ReductionOp::sum;
  Tensor out = detail::untracked([&] {
    const detail::prof::Scope op_scope(reduce_name(op), a);
    return dim ? reduce_dim_of(op, a, a, dtype, *dim, keepdim) : reduce_all_of(op, a, a, dtype);
  });
  return detail::record(is_sum ? "SumBackward" : "MeanBackward", out, {a}, [&] {
    return [s = a.shape(), n = a.numel(), dim, keepdim, is_sum, from = a.dtype()](const Tensor& g) {
      namespace f = detail::formulas;
      if (!dim) return converted(is_sum ? f::sum_all(g, s) : f::mean_all(g, s, n), from);
      return converted(is_sum ? f::sum_dim(g, s, *dim, keepdim) : f::mean_dim(g, s, *dim, keepdim),
                       from);
    };
  });
}

}  // namespace

using detail::expand_to;
using detail::Gradients;
using detail::record;
using detail::untracked;

Tensor sum(const Tensor& a) {
  return record(
      "SumBackward", untracked([&] { return reduce_all(ReductionOp::sum, a); }), {a},
      [&] { return [s = a.shape()](const Tensor& g) { return detail::formulas::sum_all(g, s); }; });
}
Tensor sum(const Tensor& a, std::int64_t d, bool k) {
  return record("SumBackward", untracked([&] { return reduce_dim(ReductionOp::sum, a, d, k); }),
                {a}, [&] {
                  return [s = a.shape(), d, k](const Tensor& g) {
                    return detail::formulas::sum_dim(g, s, d, k);
                  };
                });
}
Tensor mean(const Tensor& a) {
  return record("MeanBackward", untracked([&] { return reduce_all(ReductionOp::mean, a); }), {a},
                [&] {
                  return [s = a.shape(), n = a.numel()](const Tensor& g) {
                    return detail::formulas::mean_all(g, s, n);
                  };
                });
}
Tensor mean(const Tensor& a, std::int64_t d, bool k) {
  return record("MeanBackward", untracked([&] { return reduce_dim(ReductionOp::mean, a, d, k); }),
                {a}, [&] {
                  return [s = a.shape(), d, k](const Tensor& g) {
                    return detail::formulas::mean_dim(g, s, d, k);
                  };
                });
}

Tensor sum(const Tensor& a, const std::vector<std::int64_t>& dims, bool keepdim) {
  const detail::ReducedDims r = layout_of(a, dims, keepdim, "sum");
  return record(
      "SumBackward", untracked([&] { return reduce_dims(ReductionOp::sum, a, r); }), {a}, [&] {
        return [s = a.shape(), r](const Tensor& g) { return Gradients{spread_dims(g, s, r)}; };
      });
}
Tensor mean(const Tensor& a, const std::vector<std::int64_t>& dims, bool keepdim) {
  const detail::ReducedDims r = layout_of(a, dims, keepdim, "mean");
  return record("MeanBackward", untracked([&] { return reduce_dims(ReductionOp::mean, a, r); }),
                {a}, [&] {
                  return [s = a.shape(), r](const Tensor& g) {
                    return Gradients{spread_dims(g / static_cast<double>(r.count), s, r)};
                  };
                });
}
Tensor amax(const Tensor& a, const std::vector<std::int64_t>& dims, bool keepdim) {
  return extreme_dims(ReductionOp::max, a, dims, keepdim, "amax");
}
Tensor amin(const Tensor& a, const std::vector<std::int64_t>& dims, bool keepdim) {
  return extreme_dims(ReductionOp::min, a, dims, keepdim, "amin");
}

Tensor sum(const Tensor& a, DType dtype) {
  return reduce_as(
      ReductionOp::sum, a, dtype, [](const Tensor& x) { return sum(x); },
      [&] { return reduce_into(ReductionOp::sum, a, dtype, std::nullopt, false); });
}
Tensor sum(const Tensor& a, std::int64_t d, bool k, DType dtype) {
  return reduce_as(
      ReductionOp::sum, a, dtype, [&](const Tensor& x) { return sum(x, d, k); },
      [&] { return reduce_into(ReductionOp::sum, a, dtype, d, k); });
}
Tensor mean(const Tensor& a, DType dtype) {
  check_mean_dtype(dtype);
  return reduce_as(
      ReductionOp::mean, a, dtype, [](const Tensor& x) { return mean(x); },
      [&] { return reduce_into(ReductionOp::mean, a, dtype, std::nullopt, false); });
}
Tensor mean(const Tensor& a, std::int64_t d, bool k, DType dtype) {
  check_mean_dtype(dtype);
  return reduce_as(
      ReductionOp::mean, a, dtype, [&](const Tensor& x) { return mean(x, d, k); },
      [&] { return reduce_into(ReductionOp::mean, a, dtype, d, k); });
}

Tensor max(const Tensor& a) {
  Tensor out = untracked([&] { return reduce_all(ReductionOp::max, a); });
  return record("MaxBackward", out, {a}, [&] {
    return [x = detail::saved(a), y = detail::saved(out)](const Tensor& g) {
      return detail::formulas::extreme_all(g, x, y);
    };
  });
}
Tensor max(const Tensor& a, std::int64_t d, bool k) {
  Tensor out = untracked([&] { return reduce_dim(ReductionOp::max, a, d, k); });
  return record("MaxBackward", out, {a}, [&] {
    return [x = detail::saved(a), d, k](const Tensor& g) {
      return detail::formulas::selected_dim(g, x, x.dim() == 0 ? x : argmax(x, d, true), d, k);
    };
  });
}
Tensor min(const Tensor& a) {
  Tensor out = untracked([&] { return reduce_all(ReductionOp::min, a); });
  return record("MinBackward", out, {a}, [&] {
    return [x = detail::saved(a), y = detail::saved(out)](const Tensor& g) {
      return detail::formulas::extreme_all(g, x, y);
    };
  });
}
Tensor min(const Tensor& a, std::int64_t d, bool k) {
  Tensor out = untracked([&] { return reduce_dim(ReductionOp::min, a, d, k); });
  return record("MinBackward", out, {a}, [&] {
    return [x = detail::saved(a), d, k](const Tensor& g) {
      return detail::formulas::selected_dim(g, x, x.dim() == 0 ? x : argmin(x, d, true), d, k);
    };
  });
}
Tensor norm(const Tensor& a) {
  // d||x|| = x / ||x||, and 0 at x = 0 (the subgradient torch picks).
  Tensor out = untracked([&] { return reduce_all(ReductionOp::norm, a); });
  return record("NormBackward", out, {a}, [&] {
    return [x = detail::saved(a), y = detail::saved(out)](const Tensor& g) {
      return detail::formulas::norm(g, x, y);
    };
  });
}
Tensor argmax(const Tensor& a) {
  return untracked([&] { return reduce_all(ReductionOp::argmax, a); });
}
Tensor argmax(const Tensor& a, std::int64_t d, bool k) {
  return untracked([&] { return reduce_dim(ReductionOp::argmax, a, d, k); });
}

}  // namespace hetero
