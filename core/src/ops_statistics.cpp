// SPDX-License-Identifier: Apache-2.0
// Reductions composed from others, as torch's: argmin (argmax of an order-reversing map),
// var and std (two passes over the mean), logsumexp (shifted by the maximum). var has
// torch's var_backward, std adds torch's rule at 0; logsumexp is differentiable through its
// parts.
#include <algorithm>
#include <cmath>
#include <string>

#include <hetero/autograd.hpp>
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
namespace {

// An order-reversing map of `a` that is exact for every value of its dtype: the first maximum
// of the result is the first minimum of `a` (NaN included: -NaN is NaN).
Tensor reversed_order(const Tensor& a) {
  NoGradGuard no_grad;
  switch (a.dtype()) {
    case DType::uint8:
      return 255 - a;  // uint8 stays uint8: the integral scalar keeps the dtype
    case DType::int8:
    case DType::int32:
    case DType::int64:
      return -a - 1;  // ~a: wrapping arithmetic makes it exact at the type's minimum too
    default:
      return -a;  // floating: exact; bool reaches argmax's refusal unchanged
  }
}

Tensor reversed_or_self(const Tensor& a) {
  detail::impl_of(a, "argmin");
  return a.dtype() == DType::bool_ ? a : reversed_order(a);
}

void check_floating(const Tensor& a, const char* op) {
  detail::impl_of(a, op);
  if (!is_floating_point(a.dtype()))
    throw DTypeError(std::string(op) + ": std and var only support floating point dtypes, got " +
                     std::string(dtype_name(a.dtype())) + " (as torch)");
}

// The dtype variance is computed in: float64 where the device runs it (squares of float32
// values near 1e38 overflow float32; torch's cpu kernel accumulates in double), else the
// input's.
DType wide_dtype(const Tensor& a) {
  const detail::Storage& on = detail::storage_of(a);
  const bool f64 = detail::calls::has_kernel(on, OpFamily::cast, DType::float64) &&
                   detail::calls::has_kernel(on, BinaryOp::mul, DType::float64) &&
                   detail::calls::has_kernel(on, BinaryOp::sub, DType::float64) &&
                   detail::calls::has_kernel(on, ReductionOp::sum, DType::float64);
  return f64 ? DType::float64 : a.dtype();
}

// sum((x - mean)^2) / max(0, count - correction), with `mean` and the sum over `dims` (every
// dimension where empty: var(a) is var over all of them), in wide_dtype (the caller converts
// the result back). Its gradient is torch's var_backward,
// 2 / (count - correction) * g * (x - mean), not the derivative of the composition: through
// the mean an infinite upstream gradient gave inf - inf = NaN where torch gives +-inf
// (found by the differential test's ties, issue #44).
Tensor variance(const Tensor& a_in, const std::vector<std::int64_t>& dims, std::int64_t correction,
                bool keepdim, const char* op) {
  check_floating(a_in, op);
  const Tensor a = a_in.to(wide_dtype(a_in));
  const detail::ReducedDims r = detail::reduced_dims(a.shape(), dims, keepdim, op);
  const std::int64_t count = r.count;
  Tensor centred;
  const Tensor out = detail::untracked([&] {
    // The deviations from the mean, corrected once by their own mean (the corrected two-pass
    // algorithm, Chan, Golub and LeVeque 1983): mean(x) alone may be an ulp off, so equal
    // values deviated by +-1 ulp (var of 5 copies of 1/sqrt(1.5) was 1e-33, whose std
    // backward gave O(1) where torch's gives 0); corrected, they deviate by exactly 0.
    // Where that correction is not finite (an infinite element: its deviation is NaN), the
    // deviations stay x - mean(x), as torch's var_backward takes them: a finite element's
    // gradient is then +-inf, not NaN.
    // (r.dims lists every reduced dimension; a 0-d a has none, and the empty list reduces its
    // one element.)
    const Tensor first = a - mean(a, r.dims, true);
    const Tensor correction_mean = mean(first, r.dims, true);
    centred = first - where(isfinite(correction_mean), correction_mean, 0.0);
    const Tensor squares = centred * centred;
    const Tensor sums = sum(squares, r.dims, keepdim);
    // No elements: NaN whatever the correction (torch's mean of nothing is NaN; a negative
    // correction gave 0 / 1 = 0 here).
    return sums /
           static_cast<double>(count == 0 ? 0 : std::max<std::int64_t>(0, count - correction));
  });
  return detail::record("VarBackward", out, {a}, [&] {
    return [c = detail::saved(centred), factor = 2.0 / static_cast<double>(count - correction),
            kept = r.kept](const Tensor& g) {
      return detail::formulas::var(g.reshape(kept), c, factor);
    };
  });
}

// sqrt(v), whose gradient is 0 where the result is 0 (torch's std_backward) instead of NaN.
Tensor root(const Tensor& v) {
  const Tensor out = detail::untracked([&] { return sqrt(v); });
  return detail::record("StdBackward", out, {v}, [&] {
    return
        [y = detail::saved(out)](const Tensor& g) { return detail::formulas::sqrt_at_zero(g, y); };
  });
}

}  // namespace

Tensor argmin(const Tensor& a) { return argmax(reversed_or_self(a)); }
Tensor argmin(const Tensor& a, std::int64_t dim, bool keepdim) {
  return argmax(reversed_or_self(a), dim, keepdim);
}

Tensor var(const Tensor& a, std::int64_t correction) {
  return variance(a, {}, correction, false, "var").to(a.dtype());
}
Tensor var(const Tensor& a, std::int64_t dim, std::int64_t correction, bool keepdim) {
  return variance(a, {dim}, correction, keepdim, "var").to(a.dtype());
}
Tensor var(const Tensor& a, const std::vector<std::int64_t>& dims, std::int64_t correction,
           bool keepdim) {
  return variance(a, dims, correction, keepdim, "var").to(a.dtype());
}
// The root in the wide dtype too: the variance of float32 values may exceed float32's range.
Tensor std(const Tensor& a, std::int64_t correction) {
  return root(variance(a, {}, correction, false, "std")).to(a.dtype());
}
Tensor std(const Tensor& a, std::int64_t dim, std::int64_t correction, bool keepdim) {
  return root(variance(a, {dim}, correction, keepdim, "std")).to(a.dtype());
}
Tensor std(const Tensor& a, const std::vector<std::int64_t>& dims, std::int64_t correction,
           bool keepdim) {
  return root(variance(a, dims, correction, keepdim, "std")).to(a.dtype());
}

Tensor logsumexp(const Tensor& a_in, std::int64_t dim, bool keepdim) {
  const detail::prof::Scope op_scope("logsumexp", a_in);
  detail::impl_of(a_in, "logsumexp");
  // Integers and bool give float32 (as torch); 16-bit floats are computed in float32 and
  // rounded once at the end, as every 16-bit op of hetero.
  const DType out_dtype = is_floating_point(a_in.dtype()) ? a_in.dtype() : DType::float32;
  const bool narrow = out_dtype == DType::float16 || out_dtype == DType::bfloat16;
  const Tensor a = a_in.to(narrow ? DType::float32 : out_dtype);
  const std::int64_t d = detail::wrap_dim(dim, a.dim(), "logsumexp");
  if (a.dim() > 0 && a.size(d) == 0) {  // an empty sum: log(0)
    Shape shape = a.shape();
    if (keepdim)
      shape[static_cast<std::size_t>(d)] = 1;
    else
      shape.erase(shape.begin() + d);
    return full(shape, -INFINITY, TensorOptions(a.device()).dtype(out_dtype));
  }
  // The shift m (no gradient: the result does not depend on it), 0 where it is infinite, so
  // that all -inf gives -inf and a +inf gives +inf instead of NaN.
  const Tensor m = detail::untracked([&] {
    const Tensor mx = max(a, d, true);
    return where(isinf(mx), 0.0, mx);
  });
  const Tensor r = log(sum(exp(a - m), d, true)) + m;
  return (keepdim || a.dim() == 0 ? r.reshape(keepdim ? r.shape() : Shape{}) : r.squeeze(d))
      .to(out_dtype);
}

}  // namespace hetero
