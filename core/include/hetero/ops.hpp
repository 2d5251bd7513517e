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
#include <cstdint>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

HETERO_API Tensor add(const Tensor& a, const Tensor& b);
HETERO_API Tensor sub(const Tensor& a, const Tensor& b);
HETERO_API Tensor mul(const Tensor& a, const Tensor& b);
HETERO_API Tensor div(const Tensor& a, const Tensor& b);
/// Elementwise max / min of two tensors (as torch.maximum / torch.minimum).
HETERO_API Tensor maximum(const Tensor& a, const Tensor& b);
HETERO_API Tensor minimum(const Tensor& a, const Tensor& b);

HETERO_API Tensor operator+(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator-(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator*(const Tensor& a, const Tensor& b);
HETERO_API Tensor operator/(const Tensor& a, const Tensor& b);
namespace detail {
/// The 0-d operand of a tensor-scalar op on a's device, as torch wraps a Python number: a
/// floating scalar takes a floating tensor's dtype and is float32 (the default dtype) for an
/// integer or bool tensor; an integral scalar takes the tensor's dtype, its value wrapped
/// into it (uint8 + 300 is + 44, as torch), and int64 for a bool tensor. The op then
/// promotes as torch.result_type with a 0-d operand. DeviceUnavailableError for an
/// undefined `a`.
HETERO_API Tensor scalar_operand(const Tensor& a, double s);
HETERO_API Tensor scalar_operand(const Tensor& a, std::int64_t s);
}  // namespace detail

/// Tensor-scalar forms with a floating scalar (as torch's with a Python float): an integer or
/// bool tensor gives float32, a floating tensor keeps its dtype; x + INFINITY is inf.
HETERO_API Tensor operator+(const Tensor& a, double s);
HETERO_API Tensor operator-(const Tensor& a, double s);
HETERO_API Tensor operator*(const Tensor& a, double s);
HETERO_API Tensor operator/(const Tensor& a, double s);
HETERO_API Tensor operator+(double s, const Tensor& a);
HETERO_API Tensor operator-(double s, const Tensor& a);
HETERO_API Tensor operator*(double s, const Tensor& a);
HETERO_API Tensor operator/(double s, const Tensor& a);

/// Tensor-scalar forms with an integral scalar (as torch's with a Python int): the tensor
/// keeps its dtype (bool gives int64), the value converted to int64 and then wrapped into
/// the dtype; `/` is true division in floating point, the scalar not wrapped (int32 x /
/// 2^31 divides by 2^31, as torch).
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
HETERO_API Tensor operator-(const Tensor& a);

/// Unary functions, as torch's of the same names (the rows of the op tables,
/// <hetero/sdk/op_table.hpp>, give each one's element rule and gradient). exp, log, sqrt,
/// sigmoid, tanh, sin and cos are defined for floating dtypes and compute integer or bool
/// input in float32; neg, abs and relu keep integer dtypes and raise DTypeError for
/// bool (as torch: use a logical op for a mask). relu keeps NaN. NotImplementedError where the
/// device's backend lacks the op for the dtype.
HETERO_API Tensor neg(const Tensor& a);
HETERO_API Tensor exp(const Tensor& a);
HETERO_API Tensor log(const Tensor& a);
HETERO_API Tensor sqrt(const Tensor& a);
HETERO_API Tensor abs(const Tensor& a);
HETERO_API Tensor relu(const Tensor& a);
HETERO_API Tensor sigmoid(const Tensor& a);
HETERO_API Tensor tanh(const Tensor& a);
/// sin(x) and cos(x), x in radians; gradients cos(x) and -sin(x).
HETERO_API Tensor sin(const Tensor& a);
HETERO_API Tensor cos(const Tensor& a);

/// Sum of all elements (0-D), or along `dim` (negative counts from the end).
HETERO_API Tensor sum(const Tensor& a);
HETERO_API Tensor sum(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// Mean (floating dtypes; DTypeError for integers, as torch).
HETERO_API Tensor mean(const Tensor& a);
HETERO_API Tensor mean(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// Max / min values in the input's dtype, bool included (ShapeError on an empty range).
HETERO_API Tensor max(const Tensor& a);
HETERO_API Tensor max(const Tensor& a, std::int64_t dim, bool keepdim = false);
HETERO_API Tensor min(const Tensor& a);
HETERO_API Tensor min(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// Frobenius norm sqrt(sum(x^2)) of all elements (floating dtypes), 0-D.
HETERO_API Tensor norm(const Tensor& a);
/// Index (int64) of the first maximum, over the flattened tensor or along `dim`; NaN is the
/// maximum. DTypeError for bool (as torch).
HETERO_API Tensor argmax(const Tensor& a);
HETERO_API Tensor argmax(const Tensor& a, std::int64_t dim, bool keepdim = false);

/// Matrix product as torch.matmul: 1-D x 1-D is a dot product, 2-D x 2-D a GEMM, and
/// batched for more dimensions with broadcast batch dimensions. Floating dtypes only, and
/// both operands of one dtype (DTypeError otherwise, as torch); ShapeError naming both shapes when
/// inner dimensions differ. Computed with the backend's GEMM (OpenBLAS, cuBLAS, ...).
HETERO_API Tensor matmul(const Tensor& a, const Tensor& b);

/// softmax(x)_i = exp(x_i - max) / sum_j exp(x_j - max) along `dim` (numerically stable).
/// Floating dtypes (DTypeError otherwise, as torch); an empty tensor gives an empty result.
HETERO_API Tensor softmax(const Tensor& a, std::int64_t dim);
/// log_softmax(x)_i = x_i - max - log(sum_j exp(x_j - max)) along `dim`.
HETERO_API Tensor log_softmax(const Tensor& a, std::int64_t dim);

/// Converts to `t` on the same device (always a new tensor).
HETERO_API Tensor cast(const Tensor& a, DType t);

}  // namespace hetero
