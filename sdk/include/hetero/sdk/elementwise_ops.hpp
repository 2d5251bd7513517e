#pragma once
/// @file elementwise_ops.hpp
/// Note [Element-wise semantics]: what UnaryOp and BinaryOp compute on one element, written
/// once for every backend (host and CUDA device code), as torch does:
/// - floating types (float, double; Half and BFloat16 computed in float and rounded to
///   nearest even on return): IEEE arithmetic and the C math functions; sigmoid is
///   1 / (1 + exp(-x)); maximum/minimum propagate a NaN in either operand (the first one
///   when both are NaN);
/// - signed integers: + - * and negation wrap around (two's complement, no signed
///   overflow); division truncates towards zero, x / 0 is 0 (no trap) and MIN / -1 wraps to
///   MIN; unary ops are neg, abs (abs(MIN) == MIN) and relu only;
/// - bool takes no arithmetic (supports_unary / supports_binary say false).
/// Compile-time forms (unary_element<Op>(x)) let loops be specialised per op and
/// vectorised; the runtime forms (unary_element(op, x)) switch once per element.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <hetero/sdk/half.hpp>
#include <hetero/sdk/host_device.hpp>
#include <hetero/sdk/kernel_args.hpp>

namespace hetero {
namespace ops_detail {

// The type arithmetic runs in: float for the 16-bit floats, T otherwise.
template <class T>
using Compute =
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
HETERO_HOST_DEVICE inline T wrap(std::uint64_t v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
}

}  // namespace ops_detail

/// Whether UnaryOp `op` is defined for storage type T (see the note).
template <class T>
constexpr bool supports_unary(UnaryOp op) noexcept {
  if constexpr (is_floating_storage_v<T>)
    return true;
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return false;  // bool
  else
    return op == UnaryOp::neg || op == UnaryOp::abs || op == UnaryOp::relu;
}

/// Whether BinaryOp ops are defined for storage type T (every op but on bool).
template <class T>
constexpr bool supports_binary(BinaryOp) noexcept {
  return !std::is_same_v<T, std::uint8_t>;
}

/// `Op` applied to x (the note's rules). For an op T does not support, returns x: check
/// supports_unary first.
template <UnaryOp Op, class T>
HETERO_HOST_DEVICE inline T unary_element(T in) {
  using namespace ops_detail;
  if constexpr (is_floating_storage_v<T>) {
    // The <cmath> overloads for float and double; nvcc maps them to its device math
    // functions in device code (expf, exp, ...).
    using std::exp, std::fabs, std::log, std::sqrt, std::tanh;
    using C = Compute<T>;
    const C x = static_cast<C>(in);
    if constexpr (Op == UnaryOp::neg)
      return T(-x);
    else if constexpr (Op == UnaryOp::exp)
      return T(exp(x));
    else if constexpr (Op == UnaryOp::log)
      return T(log(x));
    else if constexpr (Op == UnaryOp::sqrt)
      return T(sqrt(x));
    else if constexpr (Op == UnaryOp::abs)
      return T(fabs(x));
    else if constexpr (Op == UnaryOp::relu)
      return x > C(0) ? in : T(C(0));
    else if constexpr (Op == UnaryOp::sigmoid)
      return T(C(1) / (C(1) + exp(-x)));
    else
      return T(tanh(x));
  } else if constexpr (std::is_signed_v<T>) {
    const T negated = wrap<T>(0ULL - static_cast<std::uint64_t>(in));
    if constexpr (Op == UnaryOp::neg)
      return negated;
    else if constexpr (Op == UnaryOp::abs)
      return in < 0 ? negated : in;
    else if constexpr (Op == UnaryOp::relu)
      return in > 0 ? in : T(0);
    else
      return in;
  } else {
    return in;
  }
}

/// `Op` applied to (x, y) (the note's rules). On bool, returns x: check supports_binary.
template <BinaryOp Op, class T>
HETERO_HOST_DEVICE inline T binary_element(T a, T b) {
  using namespace ops_detail;
  if constexpr (is_floating_storage_v<T>) {
    using C = Compute<T>;
    const C x = static_cast<C>(a), y = static_cast<C>(b);
    if constexpr (Op == BinaryOp::add)
      return T(x + y);
    else if constexpr (Op == BinaryOp::sub)
      return T(x - y);
    else if constexpr (Op == BinaryOp::mul)
      return T(x * y);
    else if constexpr (Op == BinaryOp::div)
      return T(x / y);
    else if constexpr (Op == BinaryOp::maximum)
      return (x != x || x > y) ? a : b;
    else
      return (x != x || x < y) ? a : b;
  } else if constexpr (std::is_signed_v<T>) {
    const auto ux = static_cast<std::uint64_t>(a), uy = static_cast<std::uint64_t>(b);
    if constexpr (Op == BinaryOp::add)
      return wrap<T>(ux + uy);
    else if constexpr (Op == BinaryOp::sub)
      return wrap<T>(ux - uy);
    else if constexpr (Op == BinaryOp::mul)
      return wrap<T>(ux * uy);
    else if constexpr (Op == BinaryOp::div) {
      if (b == 0) return T(0);                 // no trap
      if (b == -1) return wrap<T>(0ULL - ux);  // MIN / -1 wraps
      return static_cast<T>(a / b);
    } else if constexpr (Op == BinaryOp::maximum)
      return a > b ? a : b;
    else
      return a < b ? a : b;
  } else {
    return a;
  }
}

/// Calls f(std::integral_constant<UnaryOp, op>{}): a runtime op as a compile-time one.
template <class F>
decltype(auto) visit_unary(UnaryOp op, F&& f) {
  using U = UnaryOp;
  switch (op) {
    case U::neg:
      return f(std::integral_constant<U, U::neg>{});
    case U::exp:
      return f(std::integral_constant<U, U::exp>{});
    case U::log:
      return f(std::integral_constant<U, U::log>{});
    case U::sqrt:
      return f(std::integral_constant<U, U::sqrt>{});
    case U::abs:
      return f(std::integral_constant<U, U::abs>{});
    case U::relu:
      return f(std::integral_constant<U, U::relu>{});
    case U::sigmoid:
      return f(std::integral_constant<U, U::sigmoid>{});
    case U::tanh:
      break;
  }
  return f(std::integral_constant<U, U::tanh>{});
}

/// Calls f(std::integral_constant<BinaryOp, op>{}).
template <class F>
decltype(auto) visit_binary(BinaryOp op, F&& f) {
  using B = BinaryOp;
  switch (op) {
    case B::add:
      return f(std::integral_constant<B, B::add>{});
    case B::sub:
      return f(std::integral_constant<B, B::sub>{});
    case B::mul:
      return f(std::integral_constant<B, B::mul>{});
    case B::div:
      return f(std::integral_constant<B, B::div>{});
    case B::maximum:
      return f(std::integral_constant<B, B::maximum>{});
    case B::minimum:
      break;
  }
  return f(std::integral_constant<B, B::minimum>{});
}

/// The runtime form of unary_element<Op> (one switch per element: for device code that
/// keeps one kernel for every op).
template <class T>
HETERO_HOST_DEVICE inline T unary_element(UnaryOp op, T x) {
  switch (op) {
    case UnaryOp::neg:
      return unary_element<UnaryOp::neg>(x);
    case UnaryOp::exp:
      return unary_element<UnaryOp::exp>(x);
    case UnaryOp::log:
      return unary_element<UnaryOp::log>(x);
    case UnaryOp::sqrt:
      return unary_element<UnaryOp::sqrt>(x);
    case UnaryOp::abs:
      return unary_element<UnaryOp::abs>(x);
    case UnaryOp::relu:
      return unary_element<UnaryOp::relu>(x);
    case UnaryOp::sigmoid:
      return unary_element<UnaryOp::sigmoid>(x);
    case UnaryOp::tanh:
      break;
  }
  return unary_element<UnaryOp::tanh>(x);
}

/// The runtime form of binary_element<Op>.
template <class T>
HETERO_HOST_DEVICE inline T binary_element(BinaryOp op, T x, T y) {
  switch (op) {
    case BinaryOp::add:
      return binary_element<BinaryOp::add>(x, y);
    case BinaryOp::sub:
      return binary_element<BinaryOp::sub>(x, y);
    case BinaryOp::mul:
      return binary_element<BinaryOp::mul>(x, y);
    case BinaryOp::div:
      return binary_element<BinaryOp::div>(x, y);
    case BinaryOp::maximum:
      return binary_element<BinaryOp::maximum>(x, y);
    case BinaryOp::minimum:
      break;
  }
  return binary_element<BinaryOp::minimum>(x, y);
}

}  // namespace hetero
