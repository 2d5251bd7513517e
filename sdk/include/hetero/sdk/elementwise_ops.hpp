// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file elementwise_ops.hpp
/// Note [Element-wise semantics]: what UnaryOp and BinaryOp compute on one element, for
/// every backend (host and CUDA device code), generated from the rows of op_table.hpp:
/// - floating types (float, double; Half and BFloat16 computed in float and rounded to
///   nearest even on return): the row's floating rule with IEEE arithmetic and the C math
///   functions; maximum/minimum propagate a NaN in either operand (the first one when both
///   are NaN), relu keeps x unless x < 0, so a NaN and -0.0 pass through (as torch.relu,
///   clamp_min(x, 0), on the cpu);
/// - integers, int8, uint8, int32 and int64 (rows of class `numeric` / `arithmetic`): the row's
///   integer rule; + - * and negation wrap around modulo 2^bits (two's complement, no signed
///   overflow: uint8 1 - 2 is 255, as torch); there is no integer division (div is a
///   `floating` row: the core divides integers in float32); abs(MIN) == MIN; abs and relu
///   of uint8 are x; the rounding rows (floor, ceil, round, trunc) return integers as they are;
/// - bool takes no arithmetic (table_defines() says false).
/// Compile-time forms (unary_element<Op>(x)) let loops be specialised per op and
/// vectorised; the runtime forms (unary_element(op, x)) switch once per element, for device
/// code that keeps one kernel for every op. Both exist for exactly the rows of the table.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <hetero/internal_assert.hpp>
#include <hetero/sdk/half.hpp>
#include <hetero/sdk/host_device.hpp>
#include <hetero/sdk/kernel_args.hpp>
#include <hetero/sdk/op_codes.hpp>

namespace hetero {
namespace ops_detail {

template <class T>
HETERO_HOST_DEVICE inline T wrap(std::uint64_t v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
}

// The integer rules' helpers (OpenCL's elementwise.cl defines the same names): two's
// complement arithmetic without signed overflow, division without a trap.
template <class T>
HETERO_HOST_DEVICE inline T wrap_neg(T x) {
  return wrap<T>(0ULL - static_cast<std::uint64_t>(x));
}
template <class T>
HETERO_HOST_DEVICE inline T wrap_add(T x, T y) {
  return wrap<T>(static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(y));
}
template <class T>
HETERO_HOST_DEVICE inline T wrap_sub(T x, T y) {
  return wrap<T>(static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y));
}
template <class T>
HETERO_HOST_DEVICE inline T wrap_mul(T x, T y) {
  return wrap<T>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y));
}
template <class T>
HETERO_HOST_DEVICE inline T wrap_div(T x, T y) {
  if (y == 0) return T(0);  // no trap
  if constexpr (std::is_signed_v<T>)
    if (y == -1) return wrap_neg<T>(x);  // MIN / -1 wraps
  return static_cast<T>(x / y);
}

// x - trunc(x / y) * y (C's %, the sign of x), 0 for y == 0 (the core refuses it before a
// kernel runs) and for MIN % -1 (whose quotient overflows): never a trap.
template <class T>
HETERO_HOST_DEVICE inline T wrap_fmod(T x, T y) {
  if (y == 0) return T(0);
  if constexpr (std::is_signed_v<T>)
    if (y == -1) return T(0);
  return static_cast<T>(x % y);
}
// Python's x % y (the sign of y), as torch.remainder of integers; wrap_fmod's zeros.
template <class T>
HETERO_HOST_DEVICE inline T wrap_remainder(T x, T y) {
  const T r = wrap_fmod(x, y);
  if constexpr (std::is_signed_v<T>)
    if (r != 0 && ((r < 0) != (y < 0))) return static_cast<T>(r + y);
  return r;
}

// x < 0, without a comparison an unsigned type would make pointless (compiler warnings).
template <class T>
HETERO_HOST_DEVICE inline bool is_negative(T x) {
  if constexpr (std::is_signed_v<T>)
    return x < 0;
  else
    return (void)x, false;
}

// x to the power y in T, wrapping around as wrap_mul (torch's integer pow: squaring and
// multiplying). A negative exponent gives 1 for x == 1, +-1 for x == -1 and 0 otherwise
// (the integer part of 1 / x^|y|), as torch.pow of integer tensors.
template <class T>
HETERO_HOST_DEVICE inline T wrap_pow(T x, T y) {
  if (is_negative(y)) {
    if (x == T(1)) return T(1);
    if constexpr (std::is_signed_v<T>)
      if (x == T(-1)) return (y & T(1)) ? T(-1) : T(1);
    return T(0);
  }
  std::uint64_t result = 1, base = static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
  for (auto e = static_cast<std::uint64_t>(y); e != 0; e >>= 1) {
    if (e & 1U) result *= base;
    base *= base;
  }
  return wrap<T>(result);
}

// One specialisation per row: the rules as functions of the compute type C.
template <class T>
inline constexpr bool kNoIntegerRule = false;
/// What HETERO_NO_INTEGER_RULE expands to: a compile error wherever a `floating` row's
/// integer rule is instantiated.
template <class T>
HETERO_HOST_DEVICE T no_integer_rule(T x) {
  static_assert(kNoIntegerRule<T>,
                "the integer rule of a `floating` op row was evaluated: such a row has none "
                "(HETERO_NO_INTEGER_RULE); compute integers in float32 or give the row a rule");
  return x;
}

template <UnaryOp Op>
struct UnaryRule;
template <BinaryOp Op>
struct BinaryRule;
template <TernaryOp Op>
struct TernaryRule;

// The rules' math functions: the <cmath> overloads for float and double (nvcc maps them to
// its device functions in device code, expf, exp, ...).
#define HETERO_UNARY_RULE(name, since, dtypes, floating_rule, integer_rule, ...) \
  template <>                                                                    \
  struct UnaryRule<UnaryOp::name> {                                              \
    template <class C>                                                           \
    HETERO_HOST_DEVICE static C floating(C x) {                                  \
      using namespace std;                                                       \
      return static_cast<C>(floating_rule);                                      \
    }                                                                            \
    template <class C>                                                           \
    HETERO_HOST_DEVICE static C integer(C x) {                                   \
      return static_cast<C>(integer_rule);                                       \
    }                                                                            \
  };
HETERO_FORALL_UNARY_OPS(HETERO_UNARY_RULE)
#undef HETERO_UNARY_RULE

#define HETERO_BINARY_RULE(name, since, dtypes, floating_rule, integer_rule, ...) \
  template <>                                                                     \
  struct BinaryRule<BinaryOp::name> {                                             \
    template <class C>                                                            \
    HETERO_HOST_DEVICE static C floating(C x, C y) {                              \
      using namespace std;                                                        \
      return static_cast<C>(floating_rule);                                       \
    }                                                                             \
    template <class C>                                                            \
    HETERO_HOST_DEVICE static C integer(C x, C y) {                               \
      return static_cast<C>(integer_rule);                                        \
    }                                                                             \
  };
HETERO_FORALL_BINARY_OPS(HETERO_BINARY_RULE)
#undef HETERO_BINARY_RULE

#define HETERO_TERNARY_RULE(name, since, dtypes, rule) \
  template <>                                          \
  struct TernaryRule<TernaryOp::name> {                \
    template <class C>                                 \
    HETERO_HOST_DEVICE static C apply(C c, C x, C y) { \
      return static_cast<C>(rule);                     \
    }                                                  \
  };
HETERO_FORALL_TERNARY_OPS(HETERO_TERNARY_RULE)
#undef HETERO_TERNARY_RULE

}  // namespace ops_detail

/// Whether UnaryOp `op` is defined for storage type T (the row's dtypes column).
template <class T>
constexpr bool supports_unary(UnaryOp op) noexcept {
  // Every row is defined for every floating type: one compare on the kernels' hot path.
  if constexpr (is_floating_storage_v<T>) return static_cast<int>(op) < kUnaryOpCount;
  return table_defines(op, dtype_of<T>);
}

/// Whether BinaryOp `op` is defined for storage type T (the row's dtypes column: no op on
/// bool, no `floating` row on the integers).
template <class T>
constexpr bool supports_binary(BinaryOp op) noexcept {
  if constexpr (is_floating_storage_v<T>) return static_cast<int>(op) < kBinaryOpCount;
  return table_defines(op, dtype_of<T>);
}

/// True for the storage types of the integer dtypes (int8, uint8, int32, int64; not bool),
/// which take the rows' integer rules.
template <class T>
inline constexpr bool is_integer_storage_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// `Op` applied to x (the row's rule for T). Only for an op T supports (supports_unary);
/// otherwise returns x.
template <UnaryOp Op, class T>
HETERO_HOST_DEVICE inline T unary_element(T in) {
  using Rule = ops_detail::UnaryRule<Op>;
  if constexpr (is_floating_storage_v<T>) {
    using C = compute_type_t<T>;
    return T(Rule::floating(static_cast<C>(in)));
  } else if constexpr (is_integer_storage_v<T>) {
    if constexpr (op_table_detail::kUnaryDTypes[static_cast<int>(Op)] == DTypeClass::numeric)
      return Rule::integer(in);
    else
      return in;
  } else {
    return in;
  }
}

/// `Op` applied to (x, y) (the row's rule for T). Only for an op T supports
/// (supports_binary); otherwise (bool, or a `floating` row on an integer type) returns x.
template <BinaryOp Op, class T>
HETERO_HOST_DEVICE inline T binary_element(T a, T b) {
  using Rule = ops_detail::BinaryRule<Op>;
  if constexpr (is_floating_storage_v<T>) {
    using C = compute_type_t<T>;
    return T(Rule::floating(static_cast<C>(a), static_cast<C>(b)));
  } else if constexpr (is_integer_storage_v<T>) {
    if constexpr (op_table_detail::kBinaryDTypes[static_cast<int>(Op)] != DTypeClass::floating)
      return Rule::integer(a, b);
    else
      return a;
  } else {
    return a;
  }
}

/// `Op` applied to (c, x, y) (the row's rule, in float for the 16-bit types); every dtype.
template <TernaryOp Op, class T>
HETERO_HOST_DEVICE inline T ternary_element(T c, T x, T y) {
  using Rule = ops_detail::TernaryRule<Op>;
  if constexpr (is_floating_storage_v<T>) {
    using C = compute_type_t<T>;
    return T(Rule::apply(static_cast<C>(c), static_cast<C>(x), static_cast<C>(y)));
  } else {
    return Rule::apply(c, x, y);
  }
}

/// acc + x as Backend::scatter_add adds (interface minor 6): in float for the 16-bit types
/// (rounded to T after the addition), wrapping around for integers, logical or for bool
/// (as torch's scatter_add_ of bool tensors).
template <class T>
HETERO_HOST_DEVICE inline T scatter_add_element(T acc, T x) {
  if constexpr (is_floating_storage_v<T>) {
    using C = compute_type_t<T>;
    return T(static_cast<C>(acc) + static_cast<C>(x));
  } else if constexpr (is_integer_storage_v<T>) {
    return ops_detail::wrap_add(acc, x);
  } else {
    return acc || x;
  }
}

/// Calls f(std::integral_constant<UnaryOp, op>{}): a runtime op as a compile-time one.
/// HETERO_INTERNAL_ASSERT for a code outside the table (the core never passes one).
template <class F>
decltype(auto) visit_unary(UnaryOp op, F&& f) {
  switch (op) {
#define HETERO_VISIT_CASE(name, ...) \
  case UnaryOp::name:                \
    return f(std::integral_constant<UnaryOp, UnaryOp::name>{});
    HETERO_FORALL_UNARY_OPS(HETERO_VISIT_CASE)
#undef HETERO_VISIT_CASE
  }
  HETERO_INTERNAL_ASSERT(false, "unary op code " + std::to_string(static_cast<int>(op)) +
                                    " is not in this build's table");
}

/// Calls f(std::integral_constant<BinaryOp, op>{}) (HETERO_INTERNAL_ASSERT as visit_unary).
template <class F>
decltype(auto) visit_binary(BinaryOp op, F&& f) {
  switch (op) {
#define HETERO_VISIT_CASE(name, ...) \
  case BinaryOp::name:               \
    return f(std::integral_constant<BinaryOp, BinaryOp::name>{});
    HETERO_FORALL_BINARY_OPS(HETERO_VISIT_CASE)
#undef HETERO_VISIT_CASE
  }
  HETERO_INTERNAL_ASSERT(false, "binary op code " + std::to_string(static_cast<int>(op)) +
                                    " is not in this build's table");
}

/// Calls f(std::integral_constant<TernaryOp, op>{}) (HETERO_INTERNAL_ASSERT as visit_unary).
template <class F>
decltype(auto) visit_ternary(TernaryOp op, F&& f) {
  switch (op) {
#define HETERO_VISIT_CASE(name, ...) \
  case TernaryOp::name:              \
    return f(std::integral_constant<TernaryOp, TernaryOp::name>{});
    HETERO_FORALL_TERNARY_OPS(HETERO_VISIT_CASE)
#undef HETERO_VISIT_CASE
    default:
      break;
  }
  HETERO_INTERNAL_ASSERT(false, "ternary op code " + std::to_string(static_cast<int>(op)) +
                                    " is not in this build's table");
}

/// The runtime form of unary_element<Op> (one switch per element). Device code cannot
/// throw: the host checks op_known() before launching, so the end is never reached.
template <class T>
HETERO_HOST_DEVICE inline T unary_element(UnaryOp op, T x) {
  switch (op) {
#define HETERO_ELEMENT_CASE(name, ...) \
  case UnaryOp::name:                  \
    return unary_element<UnaryOp::name>(x);
    HETERO_FORALL_UNARY_OPS(HETERO_ELEMENT_CASE)
#undef HETERO_ELEMENT_CASE
  }
  return x;  // not reached (see above)
}

/// The runtime form of binary_element<Op>.
template <class T>
HETERO_HOST_DEVICE inline T binary_element(BinaryOp op, T x, T y) {
  switch (op) {
#define HETERO_ELEMENT_CASE(name, ...) \
  case BinaryOp::name:                 \
    return binary_element<BinaryOp::name>(x, y);
    HETERO_FORALL_BINARY_OPS(HETERO_ELEMENT_CASE)
#undef HETERO_ELEMENT_CASE
  }
  return x;  // not reached (see unary_element)
}

/// The runtime form of ternary_element<Op>.
template <class T>
HETERO_HOST_DEVICE inline T ternary_element(TernaryOp op, T c, T x, T y) {
  switch (op) {
#define HETERO_ELEMENT_CASE(name, ...) \
  case TernaryOp::name:                \
    return ternary_element<TernaryOp::name>(c, x, y);
    HETERO_FORALL_TERNARY_OPS(HETERO_ELEMENT_CASE)
#undef HETERO_ELEMENT_CASE
    default:
      break;
  }
  return x;  // not reached (see unary_element)
}

}  // namespace hetero
