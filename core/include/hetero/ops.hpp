// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file ops.hpp
/// Tensor operations. All operands must be on one device (DeviceMismatchError naming
/// both devices and the op otherwise); results are new contiguous tensors on that
/// device, computed by its backend. Binary ops broadcast as NumPy does (ShapeError with
/// both shapes otherwise) and promote dtypes as torch.result_type: the order bool < int32 <
/// int64 < float16, bfloat16 < float32 < float64, float16 with bfloat16 gives float32, and a
/// 0-d operand counts only when its category (bool < integer < floating) is higher than the
/// other's. `/` of integers gives float32. Bool operands: + and maximum are logical or,
/// * and minimum logical and (bool result), `-` raises DTypeError (as torch).
#include <concepts>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// a + b, a - b, a * b and a / b element by element, as torch.add / sub / mul / div (without
/// alpha or rounding_mode): broadcasting and promotion as the file comment says; div is true
/// division (integers give float32). Gradients g, -g, g b and g / b, -g a / b^2 to a and b,
/// summed over broadcast dimensions.
/// @{
HETERO_API Tensor add(const Tensor& a, const Tensor& b);
HETERO_API Tensor sub(const Tensor& a, const Tensor& b);
HETERO_API Tensor mul(const Tensor& a, const Tensor& b);
HETERO_API Tensor div(const Tensor& a, const Tensor& b);
/// @}
/// Elementwise max / min of two tensors (as torch.maximum / torch.minimum).
/// @{
HETERO_API Tensor maximum(const Tensor& a, const Tensor& b);
HETERO_API Tensor minimum(const Tensor& a, const Tensor& b);
/// @}

/// The operators of add, sub, mul and div (as libtorch's).
/// @{
HETERO_API Tensor operator+(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator-(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator*(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator/(const Tensor& a, const Tensor& b);
/// @}
namespace detail {
/// The 0-d operand of a tensor-scalar op on a's device, as torch wraps a Python number: a
/// floating scalar takes a floating tensor's dtype and is float32 (the default dtype) for an
/// integer or bool tensor; an integral scalar takes the tensor's dtype, its value wrapped
/// into it (uint8 + 300 is + 44, as torch), and int64 for a bool tensor. The op then
/// promotes as torch.result_type with a 0-d operand. DeviceUnavailableError for an
/// undefined `a`.
/// @{
HETERO_API Tensor scalar_operand(const Tensor& a, double s);
HETERO_API Tensor scalar_operand(const Tensor& a, std::int64_t s);
/// @}
}  // namespace detail

/// Tensor-scalar forms with a floating scalar (as torch's with a Python float): an integer or
/// bool tensor gives float32, a floating tensor keeps its dtype; x + INFINITY is inf.
/// @{
HETERO_API Tensor operator+(const Tensor& a, double s);
HETERO_API Tensor operator-(const Tensor& a, double s);
HETERO_API Tensor operator*(const Tensor& a, double s);
HETERO_API Tensor operator/(const Tensor& a, double s);
HETERO_API Tensor operator+(double s, const Tensor& a);
HETERO_API Tensor operator-(double s, const Tensor& a);
HETERO_API Tensor operator*(double s, const Tensor& a);
HETERO_API Tensor operator/(double s, const Tensor& a);
/// @}

/// Tensor-scalar forms with an integral scalar (as torch's with a Python int): the tensor
/// keeps its dtype (bool gives int64), the value converted to int64 and then wrapped into
/// the dtype; `/` is true division in floating point, the scalar not wrapped (int32 x /
/// 2^31 divides by 2^31, as torch).
/// @{
template <IntegralScalar I>
Tensor operator+(const Tensor& a, I s) {
  return a + detail::scalar_operand(a, static_cast<std::int64_t>(s));
}
template <IntegralScalar I>
Tensor operator-(const Tensor& a, I s) {
  return a - detail::scalar_operand(a, static_cast<std::int64_t>(s));
}
template <IntegralScalar I>
Tensor operator*(const Tensor& a, I s) {
  return a * detail::scalar_operand(a, static_cast<std::int64_t>(s));
}
template <IntegralScalar I>
Tensor operator/(const Tensor& a, I s) {
  return a / detail::scalar_operand(a, static_cast<double>(s));
}
template <IntegralScalar I>
Tensor operator+(I s, const Tensor& a) {
  return detail::scalar_operand(a, static_cast<std::int64_t>(s)) + a;
}
template <IntegralScalar I>
Tensor operator-(I s, const Tensor& a) {
  return detail::scalar_operand(a, static_cast<std::int64_t>(s)) - a;
}
template <IntegralScalar I>
Tensor operator*(I s, const Tensor& a) {
  return detail::scalar_operand(a, static_cast<std::int64_t>(s)) * a;
}
template <IntegralScalar I>
Tensor operator/(I s, const Tensor& a) {
  return detail::scalar_operand(a, static_cast<double>(s)) / a;
}
/// @}
/// -a, as neg(a).
HETERO_API Tensor operator-(const Tensor& a);

/// Unary functions, as torch's of the same names (the rows of the op tables,
/// <hetero/sdk/op_table.hpp>, give each one's element rule and gradient). exp, log, sqrt,
/// sigmoid, tanh, sin and cos are defined for floating dtypes and compute integer or bool
/// input in float32; neg, abs and relu keep integer dtypes and raise DTypeError for
/// bool (as torch: use a logical op for a mask). relu keeps NaN. NotImplementedError where the
/// device's backend lacks the op for the dtype.
/// @{
HETERO_API Tensor neg(const Tensor& a);
HETERO_API Tensor exp(const Tensor& a);
HETERO_API Tensor log(const Tensor& a);
HETERO_API Tensor sqrt(const Tensor& a);
HETERO_API Tensor abs(const Tensor& a);
HETERO_API Tensor relu(const Tensor& a);
HETERO_API Tensor sigmoid(const Tensor& a);
HETERO_API Tensor tanh(const Tensor& a);
/// @}
/// sin(x) and cos(x), x in radians; gradients cos(x) and -sin(x).
/// @{
HETERO_API Tensor sin(const Tensor& a);
HETERO_API Tensor cos(const Tensor& a);
/// @}
/// log(1 + x), exp(x) - 1 (accurate near 0, as torch.log1p / torch.expm1) and 1 / sqrt(x)
/// (torch.rsqrt); floating dtypes, integer input gives float32 (interface minor 5). Gradients
/// g / (1 + x), g (y + 1) and -g y^3 / 2.
/// @{
HETERO_API Tensor log1p(const Tensor& a);
HETERO_API Tensor expm1(const Tensor& a);
HETERO_API Tensor rsqrt(const Tensor& a);
/// @}
/// The Gauss error function 2/sqrt(pi) * integral_0^x exp(-t^2) dt (torch.erf) and 1 / x
/// (torch.reciprocal); floating dtypes, integer or bool input gives float32 (interface
/// minor 11). Gradients 2/sqrt(pi) exp(-x^2) g and -g / x^2.
/// @{
HETERO_API Tensor erf(const Tensor& a);
HETERO_API Tensor reciprocal(const Tensor& a);
/// @}
/// Rounding to an integral value in the input's dtype, as torch.floor / ceil / round /
/// trunc: round goes to the nearest, ties to even (2.5 -> 2, -0.5 -> -0); integer input
/// is returned as it is (a new tensor); NaN and infinities stay. sign: 1, -1, or 0 for 0
/// and NaN (as torch 1.13), in the input's dtype (uint8 gives 0 or 1). DTypeError for bool
/// (torch.sign of bool returns it; docs/semantics.md). The gradients are 0 (interface
/// minor 11).
/// @{
HETERO_API Tensor floor(const Tensor& a);
HETERO_API Tensor ceil(const Tensor& a);
HETERO_API Tensor round(const Tensor& a);
HETERO_API Tensor trunc(const Tensor& a);
HETERO_API Tensor sign(const Tensor& a);
/// @}

/// Sum of all elements (0-D), or along `dim` (negative counts from the end).
/// @{
HETERO_API Tensor sum(const Tensor& a);
HETERO_API Tensor sum(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// @}
/// Mean (floating dtypes; DTypeError for integers, as torch).
/// @{
HETERO_API Tensor mean(const Tensor& a);
HETERO_API Tensor mean(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// @}
/// sum and mean as `dtype`, as torch.sum / torch.mean with `dtype=`: the result is `a`
/// converted to `dtype`, then reduced, and has exactly that dtype (an integer or bool dtype
/// wraps as a conversion does: a sum of uint8 {200, 100} as uint8 is 44, of bool as bool is
/// whether any element is set). A 16-bit float tensor summed as float32 is read as it is,
/// with no converted copy, where its backend reduces into float32 (Backend::reduces_into:
/// the cpu plugin), and rounds once. The gradient reaches `a` in a's dtype. mean: DTypeError
/// for a non-floating `dtype`, as torch. Other errors as the overloads without a dtype.
/// @{
HETERO_API Tensor sum(const Tensor& a, DType dtype);
HETERO_API Tensor sum(const Tensor& a, std::int64_t dim, bool keepdim, DType dtype);
HETERO_API Tensor mean(const Tensor& a, DType dtype);
HETERO_API Tensor mean(const Tensor& a, std::int64_t dim, bool keepdim, DType dtype);
/// @}
/// sum and mean over several dimensions at once, as torch.sum / torch.mean with a tuple
/// `dim=(0, 2)`: one reduction of the listed dimensions (negative count from the end; each at
/// most once, ValueError otherwise, as torch), the result of `a`'s shape without them, or
/// with them as size 1 where `keepdim`. An empty list reduces every dimension, as torch
/// 1.13's `dim=[]` (a bare `{}` is ambiguous with the other overloads, a compile error: write
/// `std::vector<std::int64_t>{}`; a one-element `{d}` picks the one-dimension overload, the
/// same result). Dtypes, accumulation (Note [Reduction semantics]) and
/// errors as the one-dimension overloads; IndexError for a dimension out of range. Gradient:
/// the result's gradient spread over the elements each result reduced (mean: divided by
/// their count).
/// @{
HETERO_API Tensor sum(const Tensor& a, const std::vector<std::int64_t>& dims, bool keepdim = false);
HETERO_API Tensor mean(const Tensor& a, const std::vector<std::int64_t>& dims,
                       bool keepdim = false);
/// @}
/// The maximum / minimum over the dimensions `dims` (every dimension where empty), as
/// torch.amax / torch.amin: values only, in the input's dtype, bool included; NaN propagates.
/// Dimensions and keepdim as sum's list overload; ShapeError for an empty range (as max).
/// Gradient as torch's: shared evenly among the elements equal to the result (max(dim)'s
/// gradient goes to every such element too).
/// @{
HETERO_API Tensor amax(const Tensor& a, const std::vector<std::int64_t>& dims = {},
                       bool keepdim = false);
HETERO_API Tensor amin(const Tensor& a, const std::vector<std::int64_t>& dims = {},
                       bool keepdim = false);
/// @}
/// Max / min values in the input's dtype, bool included (ShapeError on an empty range).
/// Gradients as torch's: max(a) / min(a) share g evenly among the tied elements, and a NaN
/// result among the NaNs; max(a, dim) / min(a, dim) give each line's g to the one element
/// argmax / argmin selects (the first extreme, or the first NaN), ties not shared.
/// @{
HETERO_API Tensor max(const Tensor& a);
HETERO_API Tensor max(const Tensor& a, std::int64_t dim, bool keepdim = false);
HETERO_API Tensor min(const Tensor& a);
HETERO_API Tensor min(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// @}
/// Frobenius norm sqrt(sum(x^2)) of all elements (floating dtypes), 0-D.
HETERO_API Tensor norm(const Tensor& a);
/// Index (int64) of the first maximum, over the flattened tensor or along `dim`; NaN is the
/// maximum. DTypeError for bool (as torch).
/// @{
HETERO_API Tensor argmax(const Tensor& a);
HETERO_API Tensor argmax(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// @}
/// Index (int64) of the first minimum, as torch.argmin: NaN is the minimum; computed as the
/// argmax of an order-reversing map (-x for floats, -x - 1 = ~x for signed integers, 255 - x
/// for uint8), exact for every value. Errors as argmax.
/// @{
HETERO_API Tensor argmin(const Tensor& a);
HETERO_API Tensor argmin(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// @}
/// Variance sum((x - mean)^2) / max(0, N - correction) over all elements or along `dim`, as
/// torch.var (correction 1: Bessel's; 0: the population variance; N - correction <= 0 gives
/// inf or NaN, as torch). Floating dtypes (DTypeError otherwise: "std and var only support
/// floating point"). Gradient as torch's: 2 (x - mean) / (N - correction).
/// @{
HETERO_API Tensor var(const Tensor& a, std::int64_t correction = 1);
HETERO_API Tensor var(const Tensor& a, std::int64_t dim, std::int64_t correction,
                      bool keepdim = false);
/// Over several dimensions at once (torch.var's `dim=(0, 2)`; the list as sum's: an empty
/// one reduces every dimension); N is the number of elements each result reduces.
HETERO_API Tensor var(const Tensor& a, const std::vector<std::int64_t>& dims,
                      std::int64_t correction, bool keepdim = false);
/// @}
/// sqrt(var(...)), as torch.std; its gradient is 0 where the result is 0 (torch's rule).
/// @{
HETERO_API Tensor std(const Tensor& a, std::int64_t correction = 1);
HETERO_API Tensor std(const Tensor& a, std::int64_t dim, std::int64_t correction,
                      bool keepdim = false);
HETERO_API Tensor std(const Tensor& a, const std::vector<std::int64_t>& dims,
                      std::int64_t correction, bool keepdim = false);
/// @}
/// log(sum(exp(x))) along `dim`, computed stably as m + log(sum(exp(x - m))) with m the
/// maximum (0 where it is infinite), as torch.logsumexp: integer and bool input gives
/// float32; an empty reduction gives -inf. Gradient softmax(x) g.
HETERO_API Tensor logsumexp(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// Product of all elements (0-d), as torch.prod: bool and integer input gives int64
/// (wrapping around on overflow), floating input its dtype (float16 and bfloat16 computed in
/// float32 and rounded once); 1 for an empty tensor. Neighbours multiplied pairwise
/// (element-wise mul on every backend; deterministic for a given size; the elements' order
/// kept, as torch's left-to-right product keeps it). Gradient (floating): the product
/// of the other elements, exact where elements are 0 (torch's prod_backward).
HETERO_API Tensor prod(const Tensor& a);
/// Product along `dim` (negative counts from the end; IndexError out of range), as
/// torch.prod(a, dim, keepdim); 1 where the reduced extent is 0.
HETERO_API Tensor prod(const Tensor& a, std::int64_t dim, bool keepdim = false);

/// Matrix product as torch.matmul: 1-D x 1-D is a dot product, 2-D x 2-D a GEMM, and
/// batched for more dimensions with broadcast batch dimensions. Floating dtypes only, and
/// both operands of one dtype (DTypeError otherwise, as torch); ShapeError naming both shapes when
/// inner dimensions differ. Computed with the backend's GEMM (OpenBLAS, cuBLAS, ...), which
/// accumulates in the operands' dtype: where partial sums overflow, the result is +-inf or
/// NaN as the GEMM's order of accumulation gives it, not the sign of the exact sum
/// (docs/semantics.md row 27; torch's GEMM alike).
HETERO_API Tensor matmul(const Tensor& a, const Tensor& b);
/// Batched matrix product of [b, n, k] and [b, k, m] into [b, n, m], as torch.bmm (no
/// broadcasting: ShapeError unless both are 3-D with equal batch sizes and inner sizes);
/// dtypes and accuracy as matmul.
HETERO_API Tensor bmm(const Tensor& a, const Tensor& b);
/// beta * input + alpha * bmm(batch1, batch2), as torch.baddbmm: one GEMM of the backend
/// (BLAS's alpha and beta), rounded once, in the batches' dtype (the input converted to it,
/// as torch 1.13; float16/bfloat16 computed in float32). input broadcasts to the product's
/// shape (ShapeError otherwise); with beta == 0 input is ignored (its NaN and inf do not
/// propagate, as torch). Gradients: alpha * (g @ batch2^T), alpha * (batch1^T @ g), and
/// beta * g summed back to input's shape (0 where beta == 0), as torch.
HETERO_API Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2,
                          double beta = 1, double alpha = 1);

/// softmax(x)_i = exp(x_i - max) / sum_j exp(x_j - max) along `dim` (numerically stable).
/// Floating dtypes (DTypeError otherwise, as torch); an empty tensor gives an empty result.
HETERO_API Tensor softmax(const Tensor& a, std::int64_t dim);
/// log_softmax(x)_i = x_i - max - log(sum_j exp(x_j - max)) along `dim`.
HETERO_API Tensor log_softmax(const Tensor& a, std::int64_t dim);

/// Converts to `t` on the same device (always a new tensor).
HETERO_API Tensor cast(const Tensor& a, DType t);

// --- comparisons and logical ops (interface minor 4) ----------------------------------
/// Element-wise comparisons, as torch.eq / ne / lt / le / gt / ge: the operands broadcast and
/// promote as the arithmetic ops (an int32 tensor against 2.5 compares in float32; an
/// integral scalar wraps into the tensor's dtype, uint8 < 300 compares with 44, as torch),
/// the result is bool, with no gradient. NaN compares unequal to everything, itself
/// included (ne is true). The rows of the op table with dtypes `comparison`.
/// @{
HETERO_API Tensor eq(const Tensor& a, const Tensor& b);
HETERO_API Tensor ne(const Tensor& a, const Tensor& b);
HETERO_API Tensor lt(const Tensor& a, const Tensor& b);
HETERO_API Tensor le(const Tensor& a, const Tensor& b);
HETERO_API Tensor gt(const Tensor& a, const Tensor& b);
HETERO_API Tensor ge(const Tensor& a, const Tensor& b);
/// @}

/// x to the power y, as torch.pow: broadcasts and promotes as the arithmetic ops; integer
/// dtypes give integers (wrapping; a negative exponent gives 1 for x == 1, +-1 for x == -1
/// and 0 otherwise); bool with bool raises DTypeError (as torch). pow(0, 0) is 1, a
/// negative base with a fractional exponent NaN. Gradients (as torch): y * x^(y - 1), 0
/// where y == 0; x^y * log(x), 0 where x == 0 and y >= 0.
HETERO_API Tensor pow(const Tensor& a, const Tensor& b);
/// The angle of the point (b, a) in radians, in [-pi, pi], as torch.atan2(a, b): broadcasts;
/// a `floating` row, so integer and bool operands give float32 (interface minor 11).
/// Gradients g b / (a^2 + b^2) and -g a / (a^2 + b^2) (NaN at the origin, as torch).
HETERO_API Tensor atan2(const Tensor& a, const Tensor& b);
/// The remainder of a / b with the sign of a (C's fmod, truncated division), as torch.fmod:
/// broadcasts and promotes as the arithmetic ops (integers stay integers); a floating x / 0
/// is NaN. ValueError ("ZeroDivisionError", as torch's cpu kernel) when the result dtype is
/// an integer and some divisor is 0, checked before any kernel (which reads b back to the
/// host). Gradients g and -g * trunc(a / b), as torch (interface minor 12).
HETERO_API Tensor fmod(const Tensor& a, const Tensor& b);
/// fmod by a scalar (torch.fmod(Tensor, Scalar)): the scalar takes part in the promotion as
/// a 0-d tensor (an integer tensor by 2.5 gives float32).
HETERO_API Tensor fmod(const Tensor& a, double b);
/// The remainder of a / b with the sign of b (Python's %, floored division), as
/// torch.remainder: fmod(a, b) + b where that is nonzero and its sign differs from b's.
/// Broadcasting, promotion, errors and minor as fmod; gradients g and -g * floor(a / b).
HETERO_API Tensor remainder(const Tensor& a, const Tensor& b);
/// remainder by a scalar (torch.remainder(Tensor, Scalar)).
HETERO_API Tensor remainder(const Tensor& a, double b);
/// pow with a floating scalar exponent (an integer tensor gives float32, as torch). The
/// exponent keeps double precision, as in torch's pow(Tensor, Scalar) scalar path: computed
/// in float64 and rounded once to the result dtype (torch's vectorised path rounds the
/// exponent to float32 first: up to ~8 ulps apart; docs/semantics.md).
HETERO_API Tensor pow(const Tensor& a, double exponent);
/// pow with a scalar base: the base takes the exponent tensor's dtype rules as in `s + a`.
/// @{
HETERO_API Tensor pow(double base, const Tensor& exponent);
template <IntegralScalar I>
Tensor pow(I base, const Tensor& exponent) {
  return pow(detail::scalar_operand(exponent, static_cast<std::int64_t>(base)), exponent);
}
/// @}
namespace detail {
/// pow with an integral exponent: the tensor keeps its dtype (bool gives int64); an integer
/// tensor with a negative exponent raises DTypeError "integers to negative integer powers
/// are not allowed", and an exponent the dtype cannot hold (300 for int8, 2^40 for float16)
/// ValueError (both as torch).
HETERO_API Tensor pow_integral(const Tensor& a, std::int64_t exponent);
}  // namespace detail
/// pow with an integral exponent: the tensor keeps its dtype (bool gives int64); DTypeError
/// for an integer tensor with a negative exponent, ValueError for an exponent the dtype
/// cannot hold (as torch).
template <IntegralScalar I>
Tensor pow(const Tensor& a, I exponent) {
  return detail::pow_integral(a, static_cast<std::int64_t>(exponent));
}

/// Tensor-scalar comparisons (as torch's with a Python number: the scalar is wrapped as by
/// the arithmetic operators, detail::scalar_operand).
/// @{
HETERO_API Tensor eq(const Tensor& a, double s);
HETERO_API Tensor ne(const Tensor& a, double s);
HETERO_API Tensor lt(const Tensor& a, double s);
HETERO_API Tensor le(const Tensor& a, double s);
HETERO_API Tensor gt(const Tensor& a, double s);
HETERO_API Tensor ge(const Tensor& a, double s);
/// Defines name(const Tensor&, I) for an integral scalar I (undefined after use).
#define HETERO_INTEGRAL_COMPARISON(name)                        \
  template <IntegralScalar I>                                   \
  Tensor name(const Tensor& a, I s) {                           \
    return name(a, detail::scalar_operand(a, std::int64_t(s))); \
  }
HETERO_INTEGRAL_COMPARISON(eq)
HETERO_INTEGRAL_COMPARISON(ne)
HETERO_INTEGRAL_COMPARISON(lt)
HETERO_INTEGRAL_COMPARISON(le)
HETERO_INTEGRAL_COMPARISON(gt)
HETERO_INTEGRAL_COMPARISON(ge)
/// @}
#undef HETERO_INTEGRAL_COMPARISON

/// The comparison operators, as libtorch's: `a == b` is eq(a, b), a bool tensor (not a
/// bool: use equal() for "same shape and values", allclose() for closeness).
/// @{
HETERO_API Tensor operator==(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator!=(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator<(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator<=(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator>(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator>=(const Tensor& a, const Tensor& b);
/// @}
/// A number a comparison operator takes beside a tensor (any arithmetic type but bool).
template <class S>
concept ComparisonScalar = std::is_arithmetic_v<S> && !std::same_as<S, bool>;
/// With a scalar on either side (3 < x is gt(x, 3)).
/// @{
#define HETERO_SCALAR_COMPARISON_OPERATOR(op, name, mirrored) \
  template <ComparisonScalar S>                               \
  Tensor operator op(const Tensor& a, S s) {                  \
    return name(a, s);                                        \
  }                                                           \
  template <ComparisonScalar S>                               \
  Tensor operator op(S s, const Tensor& a) {                  \
    return mirrored(a, s);                                    \
  }
HETERO_SCALAR_COMPARISON_OPERATOR(==, eq, eq)
HETERO_SCALAR_COMPARISON_OPERATOR(!=, ne, ne)
HETERO_SCALAR_COMPARISON_OPERATOR(<, lt, gt)
HETERO_SCALAR_COMPARISON_OPERATOR(<=, le, ge)
HETERO_SCALAR_COMPARISON_OPERATOR(>, gt, lt)
HETERO_SCALAR_COMPARISON_OPERATOR(>=, ge, le)
/// @}
#undef HETERO_SCALAR_COMPARISON_OPERATOR

/// Logical ops, as torch.logical_and / or / xor / not: any dtype, an element is true when
/// it is non-zero (NaN is true); bool result, no gradient.
/// @{
HETERO_API Tensor logical_and(const Tensor& a, const Tensor& b);
HETERO_API Tensor logical_or(const Tensor& a, const Tensor& b);
HETERO_API Tensor logical_xor(const Tensor& a, const Tensor& b);
HETERO_API Tensor logical_not(const Tensor& a);
/// @}
/// NaN / +-inf / finite tests, as torch.isnan / isinf / isfinite (bool; integer and bool
/// tensors are finite, never NaN or inf).
/// @{
HETERO_API Tensor isnan(const Tensor& a);
HETERO_API Tensor isinf(const Tensor& a);
HETERO_API Tensor isfinite(const Tensor& a);
/// @}
/// True (0-d bool) when every / any element is non-zero, as torch.all / torch.any; all of
/// an empty tensor is true, any false. A uint8 tensor gives a uint8 result (as torch).
/// @{
HETERO_API Tensor all(const Tensor& a);
HETERO_API Tensor any(const Tensor& a);
/// @}

/// `cond ? x : y` element by element, as torch.where: `cond` must be bool (DTypeError
/// otherwise, as torch), the three broadcast together, x and y promote as the arithmetic
/// ops (a 0-d operand counts only by category). Gradients: g where cond, 0 elsewhere, to
/// x; the converse to y. The ternary table's `where` row.
HETERO_API Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y);
/// where with a scalar for y or x (wrapped as the arithmetic operators' scalars are).
/// @{
HETERO_API Tensor where(const Tensor& cond, const Tensor& x, double y);
HETERO_API Tensor where(const Tensor& cond, double x, const Tensor& y);
/// @}
/// `value` where `mask` (bool) is true, a elsewhere, as torch.masked_fill: a's dtype (the
/// value converted with full()'s overflow check: 2.7 into an integer tensor is 2, 300 into
/// uint8 raises DTypeError), the shape of a and mask broadcast together. DTypeError for a
/// mask that is not bool (torch 2's rule; 1.13 accepted others with a warning), ShapeError
/// when the shapes do not broadcast.
HETERO_API Tensor masked_fill(const Tensor& a, const Tensor& mask, double value);
/// masked_fill with a 0-d tensor value (on a's device), which takes a gradient. A value of
/// another dtype must fit a's, as for the double form (DTypeError: int8 with 300, float16
/// with 1e10, as torch); checking it reads the value (waits for its device).
HETERO_API Tensor masked_fill(const Tensor& a, const Tensor& mask, const Tensor& value);

/// Limits every element to [min, max], as torch.clamp: minimum(maximum(x, min), max)
/// computed in the result dtype, so NaN stays NaN, a NaN bound gives NaN (docs/semantics.md:
/// torch 1.13 ignores a lone NaN scalar bound) and min > max gives max; either bound may be
/// absent, not both (ValueError). The result dtype is x's promoted with each bound as `x + s`
/// (uint8 {9} with -3 and 100.5 is float32 {9}); x is converted to it before comparing.
/// An integer scalar bound wraps into an integer result dtype within torch's overflow rule
/// (uint8 takes -3 as 253), and beyond it raises DTypeError (int8 with 300, uint8 with 300),
/// as a finite floating bound beyond a floating dtype's range does (float16 with 1e10);
/// bool results raise DTypeError (as torch). Gradient (as torch's clamp_backward): to x, g
/// where min <= x <= max, else 0; to a tensor min, g where x < min < max; to a tensor max,
/// g where x > max or max < min.
/// @{
HETERO_API Tensor clamp(const Tensor& a, std::optional<Number> min, std::optional<Number> max);
HETERO_API Tensor clamp(const Tensor& a, const std::optional<Tensor>& min,
                        const std::optional<Tensor>& max);
/// @}

/// |a - b| <= atol + rtol * |b| element by element, or both equal (infinities of one sign
/// included), or both NaN when equal_nan; as torch.isclose. a and b must have one dtype
/// (DTypeError otherwise, as torch), rtol and atol must be >= 0 (ValueError). Bool result.
HETERO_API Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-05,
                          double atol = 1e-08, bool equal_nan = false);
/// all(isclose(a, b, ...)), as torch.allclose (on the host: waits for the device).
HETERO_API bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
                         bool equal_nan = false);
/// Same shape and equal elements (after promotion; NaN is never equal), as torch.equal.
HETERO_API bool equal(const Tensor& a, const Tensor& b);

// --- joining ---------------------------------------------------------------------------
/// Concatenation along `dim` (negative counts from the end), as torch.cat: the tensors must
/// share a device and every size but dim's (ShapeError naming the first that does not),
/// 1-D empty tensors are skipped (as torch), the result dtype promotes over all inputs.
/// ValueError for an empty list, ShapeError for a 0-d tensor. Gradient: each input's slice
/// of g.
HETERO_API Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// Joins tensors of one shape along a new dimension `dim` (0..ndim), as torch.stack.
HETERO_API Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim = 0);

// --- indexing along one dimension (backend kernels of plugin interface 3.6) -------------
// Every index is checked before a kernel runs: one read of the indices' minimum and
// maximum, which waits for the device (torch's cuda kernels assert on the device instead).
// A 0-d input or index counts as 1-D of one element, as torch's.

/// out[i][j][k] = input[index[i][j][k]][j][k] for dim 0 (and so on), as torch.gather: index
/// is int64 (DTypeError otherwise) with input's number of dimensions and index.size(d) <=
/// input.size(d) for d != dim (ShapeError); the result has index's shape and input's dtype
/// (any dtype). IndexError for an index outside [0, input.size(dim)) or a dim out of range;
/// DeviceMismatchError unless both are on one device. Gradient (input): scatter_add of g
/// into zeros.
HETERO_API Tensor gather(const Tensor& input, std::int64_t dim, const Tensor& index);
/// A copy of input with src's elements added where index points, as torch.scatter_add
/// (input[index[i][j]][j] += src[i][j] for dim 0): index int64 with input's number of
/// dimensions, index.size(d) <= src.size(d) for every d and <= input.size(d) for d != dim
/// (ShapeError); src's dtype equal to input's (DTypeError), any dtype (integers wrap, bool
/// adds as logical or). Deterministic on every backend: each element receives its additions
/// in order along dim. IndexError for an index outside [0, input.size(dim)). Gradients:
/// input g, src gather(g, dim, index) (zero where src extends beyond index).
HETERO_API Tensor scatter_add(const Tensor& input, std::int64_t dim, const Tensor& index,
                              const Tensor& src);
/// The slices of input along dim at the positions `index` (1-D or 0-d, int32 or int64; a
/// position may repeat), as torch.index_select: input's shape with size(dim) =
/// index.numel(). DTypeError for another index dtype, IndexError for an index of 2 or more
/// dimensions or outside [0, input.size(dim)). Gradient: the slices of g added back at
/// their positions (scatter_add).
HETERO_API Tensor index_select(const Tensor& input, std::int64_t dim, const Tensor& index);
/// Rows of `weight` [num_embeddings, embedding_dim] at `indices` (int32 or int64, any
/// shape), as torch.nn.functional.embedding: shape indices.shape + [embedding_dim].
/// `padding_idx` (negative counts from the end) takes no gradient. DTypeError for other
/// index dtypes, ShapeError unless weight is 2-D, IndexError for an index outside [0,
/// num_embeddings), ValueError for padding_idx out of range. Gradient (weight): g's rows
/// added at their indices (scatter_add), deterministic.
HETERO_API Tensor embedding(const Tensor& indices, const Tensor& weight,
                            std::optional<std::int64_t> padding_idx = std::nullopt);

}  // namespace hetero
