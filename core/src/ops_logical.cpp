// SPDX-License-Identifier: Apache-2.0
// Logical ops, NaN/inf tests, masked_fill, clamp and closeness, composed from the
// comparison rows and where (Note [Op tables]): no kernel of their own, so every backend of
// interface minor 4 runs them.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/node.hpp"
#include "autograd/record.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "promotion.hpp"

namespace hetero {
namespace {

using detail::untracked;

// `a != 0` as bool, `a` itself when it is bool already (as torch's logical ops read x).
Tensor truth(const Tensor& a) { return a.dtype() == DType::bool_ ? a : ne(a, 0.0); }

// A bool tensor of a's shape on a's device with every element `value`.
Tensor constant_mask(const Tensor& a, bool value) {
  return full(a.shape(), value ? 1.0 : 0.0, TensorOptions().dtype(DType::bool_).device(a.device()));
}

}  // namespace

Tensor logical_and(const Tensor& a, const Tensor& b) {
  return untracked([&] { return mul(truth(a), truth(b)); });  // bool * bool: logical and
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return untracked([&] { return add(truth(a), truth(b)); });  // bool + bool: logical or
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  return untracked([&] { return ne(truth(a), truth(b)); });
}
Tensor logical_not(const Tensor& a) {
  return untracked([&] { return eq(a, 0.0); });
}

Tensor isnan(const Tensor& a) {
  detail::impl_of(a, "isnan");
  if (!is_floating_point(a.dtype())) return constant_mask(a, false);
  return untracked([&] { return ne(a, a); });
}
Tensor isinf(const Tensor& a) {
  detail::impl_of(a, "isinf");
  if (!is_floating_point(a.dtype())) return constant_mask(a, false);
  return untracked([&] { return eq(abs(a), std::numeric_limits<double>::infinity()); });
}
Tensor isfinite(const Tensor& a) {
  detail::impl_of(a, "isfinite");
  if (!is_floating_point(a.dtype())) return constant_mask(a, true);
  return untracked([&] { return eq(a - a, 0.0); });  // inf - inf and NaN - NaN are NaN
}

namespace {
// all() / any(): bool, except uint8 input gives uint8 (as torch, for NumPy compatibility).
Tensor all_or_any(const Tensor& a, bool is_all) {
  detail::impl_of(a, is_all ? "all" : "any");
  const DType t = a.dtype() == DType::uint8 ? DType::uint8 : DType::bool_;
  if (a.numel() == 0)
    return full({}, is_all ? 1.0 : 0.0, TensorOptions().dtype(t).device(a.device()));
  return untracked([&] { return (is_all ? min(truth(a)) : max(truth(a))).to(t); });
}
}  // namespace

Tensor all(const Tensor& a) { return all_or_any(a, true); }
Tensor any(const Tensor& a) { return all_or_any(a, false); }

Tensor masked_fill(const Tensor& a, const Tensor& mask, const Tensor& value) {
  detail::impl_of(a, "masked_fill");
  detail::impl_of(mask, "masked_fill");
  detail::impl_of(value, "masked_fill");
  if (mask.dtype() != DType::bool_)
    throw DTypeError("masked_fill: expected a bool mask, got " +
                     std::string(dtype_name(mask.dtype())) + " (as torch)");
  if (value.dim() != 0)
    throw ShapeError("masked_fill: expected a 0-d value tensor, got one of " +
                     std::to_string(value.dim()) + " dimension(s) (as torch)");
  detail::check_same_device("masked_fill", {&a, &mask, &value});
  // The value must fit a's dtype, as torch checks it (issue #44: 300 into int8 wrapped, 1e10
  // into float16 became inf). Reading it waits for the device, as torch's value.item().
  if (value.dtype() != a.dtype())
    detail::check_value_fits("masked_fill", value.item<double>(), a.dtype());
  return where(mask, value.to(a.dtype()), a);
}
Tensor masked_fill(const Tensor& a, const Tensor& mask, double value) {
  detail::impl_of(a, "masked_fill");
  // full() converts with torch's overflow check (300 into uint8 raises, 2.7 into int32 is 2).
  return masked_fill(a, mask, full({}, value, TensorOptions().dtype(a.dtype()).device(a.device())));
}

namespace {

// clamp of `a`, already in the result dtype, with bounds that do not promote it further.
// Where an element equals a bound (+0.0 against -0.0), `keep_element` keeps the element, as
// torch's clamp with number bounds (std::max(x, min) and its vector kernel's max(min, x)
// both keep x: clamp(-0.0, min=0) is -0.0); otherwise the bound, as torch's vector kernel
// for tensor bounds (maximum's rule, semantics row 46).
Tensor clamp_in_result_dtype(const Tensor& a, const Tensor& lo, const Tensor& hi,
                             bool keep_element) {
  if (a.dtype() == DType::bool_)
    throw DTypeError(
        "clamp: bool tensors with bool bounds are refused (as torch); convert to an integer dtype "
        "first");
  Tensor out = untracked([&] {
    Tensor r = a;
    if (lo.defined()) r = keep_element ? maximum(lo, r) : maximum(r, lo);
    if (hi.defined()) r = keep_element ? minimum(hi, r) : minimum(r, hi);
    return r;
  });
  return detail::record("ClampBackward", out, {a, lo, hi}, [&] {
    return [x = detail::saved(a), l = lo.defined() ? detail::saved(lo) : Tensor(),
            h = hi.defined() ? detail::saved(hi) : Tensor()](const Tensor& g) {
      return detail::formulas::clamp(g, x, l, h);
    };
  });
}

// An integral scalar bound in the integer dtype `t`, with torch's overflow rule for scalars
// (c10::overflows): the dtype's range, where an unsigned dtype also takes negative values
// down to -max, wrapping (uint8 takes -3 as 253, refuses 300).
std::int64_t integral_bound(std::int64_t v, DType t, const char* which) {
  std::int64_t lowest = INT64_MIN, highest = INT64_MAX;
  switch (t) {
    case DType::uint8:
      lowest = -255, highest = 255;
      break;
    case DType::int8:
      lowest = -128, highest = 127;
      break;
    case DType::int32:
      lowest = INT32_MIN, highest = INT32_MAX;
      break;
    default:
      break;
  }
  if (v < lowest || v > highest)
    throw DTypeError(std::string("clamp: ") + which + " " + std::to_string(v) +
                     " cannot be converted to " + std::string(dtype_name(t)) +
                     " without overflow (as torch)");
  return t == DType::uint8 && v < 0 ? v + 256 : v;
}

// A scalar bound as a 0-d operand of `ax`'s dtype (the result dtype), refused as torch
// refuses it: an integer beyond the integer dtype, a finite value beyond a floating one
// (unless `fits_unchecked`: beside a NaN bound, which torch answers with NaN before it
// converts either bound).
Tensor bound_operand(const Tensor& ax, const Number& n, const char* which, bool fits_unchecked) {
  const DType t = ax.dtype();
  if (!is_floating_point(t))
    return detail::scalar_operand(ax, integral_bound(n.integral(), t, which));
  const double v = n.floating();
  if (std::isfinite(v) && !fits_unchecked)  // +-inf and NaN are bounds
    detail::check_value_fits("clamp", v, t);
  return detail::scalar_operand(ax, v);
}

}  // namespace

Tensor clamp(const Tensor& a, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  detail::impl_of(a, "clamp");
  if (!min && !max) throw ValueError("clamp: at least one of min and max must be given (as torch)");
  const Tensor lo = min ? *min : Tensor(), hi = max ? *max : Tensor();
  // The result dtype first (issue #44): x is compared with both bounds in it, not in the
  // dtype of max(x, min) (uint8 with min int8 and max float32 computes in float32).
  DType t = a.dtype();
  bool zero_dim = a.dim() == 0;
  for (const Tensor* b : {&lo, &hi}) {
    if (!b->defined()) continue;
    detail::impl_of(*b, "clamp");
    t = detail::result_type(t, zero_dim, b->dtype(), b->dim() == 0);
    zero_dim = zero_dim && b->dim() == 0;
  }
  return clamp_in_result_dtype(a.dtype() == t ? a : a.to(t), lo, hi, false);
}

Tensor clamp(const Tensor& a, std::optional<Number> min, std::optional<Number> max) {
  detail::impl_of(a, "clamp");
  if (!min && !max) throw ValueError("clamp: at least one of min and max must be given (as torch)");
  // The result dtype, as `x + s` for each bound (issue #44: torch compares in it; uint8 {9}
  // with -3 and 100.5 is float32 9, not max(9, 253) then min with 100.5).
  DType t = a.dtype();
  for (const auto& n : {min, max}) {
    if (!n) continue;
    if (!n->is_integral() && !is_floating_point(t)) t = DType::float32;
    if (n->is_integral() && t == DType::bool_) t = DType::int64;
  }
  // (Never bool here: a bool tensor with a bound promotes to int64 or float32.)
  const Tensor ax = a.dtype() == t ? a : a.to(t);
  const auto is_nan = [](const std::optional<Number>& n) {
    return n && !n->is_integral() && std::isnan(n->floating());
  };
  const bool nan_bound = is_nan(min) || is_nan(max);  // the result is NaN (row 26)
  return clamp_in_result_dtype(ax, min ? bound_operand(ax, *min, "min", nan_bound) : Tensor(),
                               max ? bound_operand(ax, *max, "max", nan_bound) : Tensor(), true);
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  const detail::prof::Scope op_scope("isclose", a);
  detail::impl_of(a, "isclose");
  detail::impl_of(b, "isclose");
  if (a.dtype() != b.dtype())
    throw DTypeError("isclose: expected both tensors of one dtype, got " +
                     std::string(dtype_name(a.dtype())) + " and " +
                     std::string(dtype_name(b.dtype())) + " (as torch)");
  if (!(rtol >= 0)) throw ValueError("isclose: rtol must be >= 0, got " + std::to_string(rtol));
  if (!(atol >= 0)) throw ValueError("isclose: atol must be >= 0, got " + std::to_string(atol));
  return untracked([&] {
    // As torch.isclose: equal elements (infinities of one sign), NaN pairs when equal_nan,
    // and finite |a - b| <= atol + rtol * |b|.
    Tensor close = eq(a, b);
    if (equal_nan && is_floating_point(a.dtype()))
      close = logical_or(close, logical_and(ne(a, a), ne(b, b)));
    if (rtol == 0 && atol == 0) return close;
    // Integer and bool operands compute the errors in float32 (no wrap-around in a - b).
    const bool exact = !is_floating_point(a.dtype());
    const Tensor x = exact ? a.to(DType::float32) : a;
    const Tensor y = exact ? b.to(DType::float32) : b;
    const Tensor allowed = abs(y * rtol) + atol;
    const Tensor actual = abs(x - y);
    return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)));
  });
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return all(isclose(a, b, rtol, atol, equal_nan)).item<bool>();
}

bool equal(const Tensor& a, const Tensor& b) {
  detail::impl_of(a, "equal");
  detail::impl_of(b, "equal");
  detail::check_same_device("equal", {&a, &b});
  if (a.shape() != b.shape()) return false;
  return all(eq(a, b)).item<bool>();
}

}  // namespace hetero
