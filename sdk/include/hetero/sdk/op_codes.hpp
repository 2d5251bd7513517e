// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file op_codes.hpp
/// The op enums and what the tables say of each op (Note [Op tables], op_table.hpp): names,
/// the dtypes it is defined for, the minor that added it, and OpRef, the one way to name
/// any op of any family (Backend::supports). Plain constexpr data, host and device.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include <hetero/dtype.hpp>
#include <hetero/sdk/op_table.hpp>

namespace hetero {

/// Element-wise functions of one operand, out = f(in): the rows of HETERO_FORALL_UNARY_OPS.
enum class UnaryOp : std::uint8_t {
#define HETERO_OP_ENUMERATOR(name, ...) name,
  HETERO_FORALL_UNARY_OPS(HETERO_OP_ENUMERATOR)
};

/// Element-wise functions of two operands, out = a OP b: the rows of
/// HETERO_FORALL_BINARY_OPS. Both inputs and out share one dtype (the core promotes first).
enum class BinaryOp : std::uint8_t { HETERO_FORALL_BINARY_OPS(HETERO_OP_ENUMERATOR) };

/// Reductions: the rows of HETERO_FORALL_REDUCE_OPS. `out` has `in`'s ndim; a dimension
/// where out.shape[d] == 1 and in.shape[d] != 1 (or both are 1) is reduced. Floating sums
/// accumulate in double, integer sums in int64 (Note [Reduction semantics],
/// reduction_ops.hpp); argmax writes int64 indices into the flattened reduced sub-space;
/// a sum of int8, uint8 or int32 may write int64 where Backend::reduces_into says so.
/// max/min/argmax of an empty range are rejected by the core; no backend sees an empty
/// range.
enum class ReduceOp : std::uint8_t { HETERO_FORALL_REDUCE_OPS(HETERO_OP_ENUMERATOR) };

/// Element-wise functions of three operands, out = f(c, x, y): the rows of
/// HETERO_FORALL_TERNARY_OPS (interface minor 4; where). All three and out share one dtype.
enum class TernaryOp : std::uint8_t {
  HETERO_FORALL_TERNARY_OPS(HETERO_OP_ENUMERATOR)
#if HETERO_TARGET_INTERFACE_MINOR < 4
      none_before_minor_4  // an enum needs an enumerator; never a valid code (count 0)
#endif
};
#undef HETERO_OP_ENUMERATOR

#define HETERO_OP_COUNT_ROW(...) +1
/// Number of rows of each table (of the minor this translation unit targets).
inline constexpr int kUnaryOpCount = 0 HETERO_FORALL_UNARY_OPS(HETERO_OP_COUNT_ROW);
inline constexpr int kBinaryOpCount = 0 HETERO_FORALL_BINARY_OPS(HETERO_OP_COUNT_ROW);
inline constexpr int kReduceOpCount = 0 HETERO_FORALL_REDUCE_OPS(HETERO_OP_COUNT_ROW);
inline constexpr int kTernaryOpCount = 0 HETERO_FORALL_TERNARY_OPS(HETERO_OP_COUNT_ROW);
#undef HETERO_OP_COUNT_ROW

/// Distributions of Backend::random(): uniform on [0, 1), standard normal.
enum class RandomDistribution : std::uint8_t { uniform, normal };

/// The ops of Backend::softmax() (interface minor 3): softmax and log_softmax along one
/// dimension, as torch.softmax / torch.log_softmax.
enum class SoftmaxOp : std::uint8_t { softmax, log_softmax };

/// The ops of Backend::conv2d() (interface minor 8): a 2-d convolution without bias and its
/// two gradients, as torch.nn.functional.conv2d and aten's convolution_backward.
enum class Conv2dOp : std::uint8_t { forward, backward_input, backward_weight };

/// The dtypes an op is defined for (the `dtypes` column).
enum class DTypeClass : std::uint8_t {
  floating,     ///< float16, bfloat16, float32, float64
  signed_ints,  ///< floating and the integers int8, uint8, int32, int64 (the table's `signed`;
                ///< torch's neg and abs take uint8 too, wrapping)
  arithmetic,   ///< every dtype but bool
  every,        ///< every dtype (fill, cast, where)
};
#define HETERO_DTYPES_floating ::hetero::DTypeClass::floating
#define HETERO_DTYPES_signed ::hetero::DTypeClass::signed_ints
#define HETERO_DTYPES_arithmetic ::hetero::DTypeClass::arithmetic
#define HETERO_DTYPES_comparison ::hetero::DTypeClass::arithmetic
#define HETERO_DTYPES_every ::hetero::DTypeClass::every

/// Whether `t` belongs to class `c`.
constexpr bool in_class(DTypeClass c, DType t) noexcept {
  switch (c) {
    case DTypeClass::floating:
      return is_floating_point(t);
    case DTypeClass::signed_ints:
      return is_floating_point(t) || is_integral(t);
    case DTypeClass::arithmetic:
      return t != DType::bool_;
    case DTypeClass::every:
      return true;
  }
  return false;
}

/// The families of kernels a Backend implements; each names its ops by a code (the op's
/// enum value, 0 where the family has one op).
/// `softmax` (minor 3) is optional: no table defines it, so a backend runs it only where its
/// supports() says so, and the core composes softmax from the other families elsewhere.
/// `ternary` (minor 4) is a table family like unary and binary. `gather` and `scatter_add`
/// (minor 6) are one kernel each, for every dtype (Backend::gather, Backend::scatter_add).
/// `conv2d` (minor 8) is optional as softmax: the core composes convolution from cast, gemm
/// and binary (Note [Convolution as GEMM]) where a backend does not opt in.
enum class OpFamily : std::uint8_t {
  fill,
  cast,
  unary,
  binary,
  reduce,
  random,
  gemm,
  softmax,
  ternary,
  gather,
  scatter_add,
  conv2d
};
/// The last OpFamily (the families are numbered 0 to kLastOpFamily).
inline constexpr OpFamily kLastOpFamily = OpFamily::conv2d;

/// One op of one family, as Backend::supports() is asked about it.
struct OpRef {
  OpFamily family = OpFamily::fill;
  std::uint8_t code = 0;

  constexpr OpRef() = default;
  constexpr OpRef(OpFamily f, std::uint8_t c = 0) : family(f), code(c) {}  // NOLINT
  constexpr OpRef(UnaryOp op) : family(OpFamily::unary), code(static_cast<std::uint8_t>(op)) {}
  constexpr OpRef(BinaryOp op) : family(OpFamily::binary), code(static_cast<std::uint8_t>(op)) {}
  constexpr OpRef(ReduceOp op) : family(OpFamily::reduce), code(static_cast<std::uint8_t>(op)) {}
  constexpr OpRef(RandomDistribution d)
      : family(OpFamily::random), code(static_cast<std::uint8_t>(d)) {}
  constexpr OpRef(SoftmaxOp op)  // NOLINT
      : family(OpFamily::softmax), code(static_cast<std::uint8_t>(op)) {}
  constexpr OpRef(TernaryOp op)  // NOLINT
      : family(OpFamily::ternary), code(static_cast<std::uint8_t>(op)) {}
  constexpr OpRef(Conv2dOp op)  // NOLINT
      : family(OpFamily::conv2d), code(static_cast<std::uint8_t>(op)) {}
  friend constexpr bool operator==(OpRef, OpRef) = default;
};

namespace op_table_detail {
#define HETERO_OP_NAME_ROW(name, ...) #name,
#define HETERO_OP_IS_COMPARISON_ROW(name, since, dtypes, ...) HETERO_IS_COMPARISON_##dtypes,
#define HETERO_IS_COMPARISON_arithmetic false
#define HETERO_IS_COMPARISON_comparison true
#define HETERO_OP_SINCE_ROW(name, since, ...) since,
#define HETERO_OP_DTYPES_ROW(name, since, dtypes, ...) HETERO_DTYPES_##dtypes,
inline constexpr std::string_view kUnaryNames[] = {HETERO_FORALL_UNARY_OPS(HETERO_OP_NAME_ROW)};
inline constexpr std::string_view kBinaryNames[] = {HETERO_FORALL_BINARY_OPS(HETERO_OP_NAME_ROW)};
inline constexpr std::string_view kReduceNames[] = {HETERO_FORALL_REDUCE_OPS(HETERO_OP_NAME_ROW)};
inline constexpr int kUnarySince[] = {HETERO_FORALL_UNARY_OPS(HETERO_OP_SINCE_ROW)};
inline constexpr int kBinarySince[] = {HETERO_FORALL_BINARY_OPS(HETERO_OP_SINCE_ROW)};
inline constexpr int kReduceSince[] = {HETERO_FORALL_REDUCE_OPS(HETERO_OP_SINCE_ROW)};
inline constexpr DTypeClass kUnaryDTypes[] = {HETERO_FORALL_UNARY_OPS(HETERO_OP_DTYPES_ROW)};
inline constexpr DTypeClass kBinaryDTypes[] = {HETERO_FORALL_BINARY_OPS(HETERO_OP_DTYPES_ROW)};
inline constexpr DTypeClass kReduceDTypes[] = {HETERO_FORALL_REDUCE_OPS(HETERO_OP_DTYPES_ROW)};
inline constexpr bool kBinaryIsComparison[] = {
    HETERO_FORALL_BINARY_OPS(HETERO_OP_IS_COMPARISON_ROW)};
#if HETERO_TARGET_INTERFACE_MINOR >= 4
inline constexpr std::string_view kTernaryNames[] = {HETERO_FORALL_TERNARY_OPS(HETERO_OP_NAME_ROW)};
inline constexpr int kTernarySince[] = {HETERO_FORALL_TERNARY_OPS(HETERO_OP_SINCE_ROW)};
inline constexpr DTypeClass kTernaryDTypes[] = {HETERO_FORALL_TERNARY_OPS(HETERO_OP_DTYPES_ROW)};
#else
inline constexpr std::string_view kTernaryNames[] = {"unknown op"};
inline constexpr int kTernarySince[] = {4};
inline constexpr DTypeClass kTernaryDTypes[] = {DTypeClass::every};
#endif
#undef HETERO_OP_IS_COMPARISON_ROW
#undef HETERO_IS_COMPARISON_arithmetic
#undef HETERO_IS_COMPARISON_comparison
#undef HETERO_OP_NAME_ROW
#undef HETERO_OP_SINCE_ROW
#undef HETERO_OP_DTYPES_ROW
inline constexpr std::string_view kFamilyNames[] = {"fill",    "cast",   "unary",       "binary",
                                                    "reduce",  "random", "gemm",        "softmax",
                                                    "ternary", "gather", "scatter_add", "conv2d"};
inline constexpr std::string_view kRandomNames[] = {"rand", "randn"};
inline constexpr std::string_view kSoftmaxNames[] = {"softmax", "log_softmax"};
inline constexpr std::string_view kConv2dNames[] = {"conv2d", "conv2d_backward_input",
                                                    "conv2d_backward_weight"};
static_assert(std::size(kFamilyNames) == static_cast<std::size_t>(kLastOpFamily) + 1,
              "kFamilyNames needs one name per OpFamily");
static_assert(std::size(kRandomNames) == static_cast<std::size_t>(RandomDistribution::normal) + 1,
              "kRandomNames needs one name per RandomDistribution");

// A row's `since` column equals the minor of its group (a row pasted into the wrong group
// fails to compile).
#define HETERO_OP_SINCE_IS_0(name, since, ...) \
  static_assert(since == 0, "op row '" #name "' is in minor group 0 but says since " #since);
#define HETERO_OP_SINCE_IS_1(name, since, ...) \
  static_assert(since == 1, "op row '" #name "' is in minor group 1 but says since " #since);
#define HETERO_OP_SINCE_IS_4(name, since, ...) \
  static_assert(since == 4, "op row '" #name "' is in minor group 4 but says since " #since);
#define HETERO_OP_SINCE_IS_5(name, since, ...) \
  static_assert(since == 5, "op row '" #name "' is in minor group 5 but says since " #since);
HETERO_UNARY_OPS_MINOR_0(HETERO_OP_SINCE_IS_0)
HETERO_UNARY_OPS_MINOR_1(HETERO_OP_SINCE_IS_1)
HETERO_BINARY_OPS_MINOR_0(HETERO_OP_SINCE_IS_0)
HETERO_REDUCE_OPS_MINOR_0(HETERO_OP_SINCE_IS_0)
HETERO_BINARY_OPS_MINOR_4(HETERO_OP_SINCE_IS_4)
HETERO_TERNARY_OPS_MINOR_4(HETERO_OP_SINCE_IS_4)
HETERO_UNARY_OPS_MINOR_5(HETERO_OP_SINCE_IS_5)
#undef HETERO_OP_SINCE_IS_5
#undef HETERO_OP_SINCE_IS_4
#undef HETERO_OP_SINCE_IS_0
#undef HETERO_OP_SINCE_IS_1
}  // namespace op_table_detail

/// Number of op codes of `family` (1 for fill, cast and gemm; softmax's 2 from minor 3;
/// conv2d's 3 from minor 8).
constexpr int op_count(OpFamily family) noexcept {
  switch (family) {
    case OpFamily::softmax:
      return HETERO_TARGET_INTERFACE_MINOR >= 3 ? 2 : 0;
    case OpFamily::conv2d:
      return HETERO_TARGET_INTERFACE_MINOR >= 8 ? 3 : 0;
    case OpFamily::unary:
      return kUnaryOpCount;
    case OpFamily::binary:
      return kBinaryOpCount;
    case OpFamily::reduce:
      return kReduceOpCount;
    case OpFamily::random:
      return 2;
    case OpFamily::ternary:
      return kTernaryOpCount;
    case OpFamily::gather:
    case OpFamily::scatter_add:
      return HETERO_TARGET_INTERFACE_MINOR >= 6 ? 1 : 0;
    case OpFamily::fill:
    case OpFamily::cast:
    case OpFamily::gemm:
      return 1;
  }
  return 0;
}

/// Whether `op` names an op of this translation unit's tables (its code is below the count).
constexpr bool op_known(OpRef op) noexcept {
  return op.family <= kLastOpFamily && op.code < op_count(op.family);
}

/// The op's name as torch spells it ("exp", "maximum", "argmax"; "fill", "cast", "gemm",
/// "rand", "randn"); "unknown op" for a code this build's tables lack.
constexpr std::string_view op_name(OpRef op) noexcept {
  if (!op_known(op)) return "unknown op";
  switch (op.family) {
    case OpFamily::unary:
      return op_table_detail::kUnaryNames[op.code];
    case OpFamily::binary:
      return op_table_detail::kBinaryNames[op.code];
    case OpFamily::reduce:
      return op_table_detail::kReduceNames[op.code];
    case OpFamily::random:
      return op_table_detail::kRandomNames[op.code];
    case OpFamily::softmax:
      return op_table_detail::kSoftmaxNames[op.code];
    case OpFamily::ternary:
      return op_table_detail::kTernaryNames[op.code];
    case OpFamily::conv2d:
      return op_table_detail::kConv2dNames[op.code];
    case OpFamily::fill:
    case OpFamily::cast:
    case OpFamily::gemm:
    case OpFamily::gather:
    case OpFamily::scatter_add:
      return op_table_detail::kFamilyNames[static_cast<int>(op.family)];
  }
  return "unknown op";  // every family has its case above (-Werror=switch)
}

/// The name of a row of each table, without the family switch of op_name(OpRef).
constexpr std::string_view op_name(UnaryOp op) noexcept {
  const auto i = static_cast<int>(op);
  return i < kUnaryOpCount ? op_table_detail::kUnaryNames[i] : "unknown op";
}
constexpr std::string_view op_name(BinaryOp op) noexcept {
  const auto i = static_cast<int>(op);
  return i < kBinaryOpCount ? op_table_detail::kBinaryNames[i] : "unknown op";
}
constexpr std::string_view op_name(ReduceOp op) noexcept {
  const auto i = static_cast<int>(op);
  return i < kReduceOpCount ? op_table_detail::kReduceNames[i] : "unknown op";
}
constexpr std::string_view op_name(TernaryOp op) noexcept {
  const auto i = static_cast<int>(op);
  return i < kTernaryOpCount ? op_table_detail::kTernaryNames[i] : "unknown op";
}

/// Whether a binary row is a comparison (dtypes `comparison`: the kernel writes 1 or 0 in the
/// operands' dtype and the core returns bool).
constexpr bool is_comparison(BinaryOp op) noexcept {
  const auto i = static_cast<int>(op);
  return i < kBinaryOpCount && op_table_detail::kBinaryIsComparison[i];
}

/// The interface minor that added `op` (0 for the families that predate the tables). Every
/// family has its case, with no default (the build makes -Wswitch an error): a new family
/// without a `since` does not compile.
constexpr int op_since(OpRef op) noexcept {
  if (!op_known(op)) return 1 << 30;
  switch (op.family) {
    case OpFamily::unary:
      return op_table_detail::kUnarySince[op.code];
    case OpFamily::binary:
      return op_table_detail::kBinarySince[op.code];
    case OpFamily::reduce:
      return op_table_detail::kReduceSince[op.code];
    case OpFamily::softmax:
      return 3;
    case OpFamily::ternary:
      return op_table_detail::kTernarySince[op.code];
    case OpFamily::gather:
    case OpFamily::scatter_add:
      return 6;
    case OpFamily::conv2d:
      return 8;
    case OpFamily::fill:
    case OpFamily::cast:
    case OpFamily::gemm:
    case OpFamily::random:
      return 0;
  }
  return 1 << 30;  // unreachable: every family has its case above
}

/// The dtypes the tables define `op` for (the `dtypes` column; fill, cast, gather and
/// scatter_add: every dtype;
/// random and gemm: floating, though random() is asked for float32 and float64 only: the
/// core draws the 16-bit types in float32 and casts, see table_defines).
constexpr DTypeClass op_dtypes(OpRef op) noexcept {
  switch (op.family) {
    case OpFamily::unary:
      return op_table_detail::kUnaryDTypes[op.code];
    case OpFamily::binary:
      return op_table_detail::kBinaryDTypes[op.code];
    case OpFamily::reduce:
      return op_table_detail::kReduceDTypes[op.code];
    case OpFamily::ternary:
      return op_table_detail::kTernaryDTypes[op.code];
    case OpFamily::random:
    case OpFamily::gemm:
    case OpFamily::softmax:
    case OpFamily::conv2d:
      return DTypeClass::floating;
    case OpFamily::fill:
    case OpFamily::cast:
    case OpFamily::gather:
    case OpFamily::scatter_add:
      return DTypeClass::every;
  }
  return DTypeClass::every;
}

/// The interface minor that added dtype `t` (Note [Interface versions]): 0 for the dtypes
/// of interface 3.0, 2 for uint8 and int8. The core never hands a plugin a dtype newer than
/// the plugin's minor (its kernels would not know the storage type).
constexpr int dtype_since(DType t) noexcept {
  return t == DType::uint8 || t == DType::int8 ? 2 : 0;
}

/// What the tables define: `op` is a row of this build, `dtype` is a dtype of this build's
/// minor and in the op's class. The default of Backend::supports(), so a backend that
/// implements every kernel of the tables need not override it.
constexpr bool table_defines(OpRef op, DType dtype) noexcept {
  if (op.family == OpFamily::random && is_half(dtype)) return false;
  if (op.family == OpFamily::softmax || op.family == OpFamily::conv2d)
    return false;  // optional: a backend opts in
  if (static_cast<int>(dtype) >= kDTypeCount || dtype_since(dtype) > HETERO_TARGET_INTERFACE_MINOR)
    return false;
  return op_known(op) && in_class(op_dtypes(op), dtype);
}

}  // namespace hetero
