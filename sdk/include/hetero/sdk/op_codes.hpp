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
/// a sum of int8, uint8 or int32 may write int64, and a sum or mean of float16 or bfloat16
/// float32, where Backend::reduces_into says so.
/// max/min/argmax of an empty range are rejected by the core; no backend sees an empty
/// range.
enum class ReductionOp : std::uint8_t { HETERO_FORALL_REDUCE_OPS(HETERO_OP_ENUMERATOR) };
/// The reductions' former name, kept for plugins written against it (the collectives'
/// hetero::distributed::ReduceOp, as torch.distributed.ReduceOp, is another enum).
using ReduceOp [[deprecated("hetero::ReduceOp is now hetero::ReductionOp")]] = ReductionOp;

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
/// @{
inline constexpr int kUnaryOpCount = 0 HETERO_FORALL_UNARY_OPS(HETERO_OP_COUNT_ROW);
inline constexpr int kBinaryOpCount = 0 HETERO_FORALL_BINARY_OPS(HETERO_OP_COUNT_ROW);
inline constexpr int kReduceOpCount = 0 HETERO_FORALL_REDUCE_OPS(HETERO_OP_COUNT_ROW);
inline constexpr int kTernaryOpCount = 0 HETERO_FORALL_TERNARY_OPS(HETERO_OP_COUNT_ROW);
/// @}
#undef HETERO_OP_COUNT_ROW

/// Distributions of Backend::random(): uniform on [0, 1), standard normal.
enum class RandomDistribution : std::uint8_t { uniform, normal };

/// The ops of Backend::softmax() (interface minor 3): softmax and log_softmax along one
/// dimension, as torch.softmax / torch.log_softmax.
enum class SoftmaxOp : std::uint8_t { softmax, log_softmax };

/// The ops of Backend::conv2d() (interface minor 8): a 2-d convolution without bias and its
/// two gradients, as torch.nn.functional.conv2d and aten's convolution_backward; from minor
/// 15, the convolution with a bias of Backend::conv2d_bias() (forward_bias). A translation
/// unit of target minor 8 to 14 counts the first three.
enum class Conv2dOp : std::uint8_t { forward, backward_input, backward_weight, forward_bias };

/// The ops of Backend::batch_norm() (interface minor 13): batch normalisation with the
/// batch's statistics and its gradient, as aten's native_batch_norm (training = true) and
/// native_batch_norm_backward.
enum class BatchNormOp : std::uint8_t { forward_training, backward };

/// The ops of Backend::pool2d() (interface minor 13): 2-d max pooling with its indices and
/// its gradient, as aten's max_pool2d_with_indices and max_pool2d_with_indices_backward;
/// from minor 14, 2-d average pooling and its gradient, as aten's avg_pool2d and
/// avg_pool2d_backward. A translation unit of target minor 13 counts the first two.
enum class Pool2dOp : std::uint8_t { max_forward, max_backward, avg_forward, avg_backward };

/// The ops of Backend::conv3d() (interface minor 16): a 3-d convolution without bias and its
/// two gradients, as torch.nn.functional.conv3d and aten's convolution_backward.
enum class Conv3dOp : std::uint8_t { forward, backward_input, backward_weight };

/// The dtypes an op is defined for (the `dtypes` column).
enum class DTypeClass : std::uint8_t {
  floating,    ///< float16, bfloat16, float32, float64
  numeric,     ///< floating and the integers int8, uint8, int32, int64, each by its own rule
               ///< (the unary table's `numeric`; torch's neg and abs take uint8 too, wrapping);
               ///< bool is refused (DTypeError), as torch's neg, floor, sign
  arithmetic,  ///< every dtype but bool (binary rows: bool computed as an integer)
  every,       ///< every dtype (fill, cast, where)
  /// The former name of `numeric` (it named uint8 too, which is not signed).
  signed_ints [[deprecated("DTypeClass::signed_ints is now DTypeClass::numeric")]] = numeric,
};
/// The DTypeClass of a table row's `dtypes` column word (`comparison` rows take the
/// arithmetic dtypes and write bool).
/// @{
#define HETERO_DTYPES_floating ::hetero::DTypeClass::floating
#define HETERO_DTYPES_numeric ::hetero::DTypeClass::numeric
#define HETERO_DTYPES_arithmetic ::hetero::DTypeClass::arithmetic
#define HETERO_DTYPES_comparison ::hetero::DTypeClass::arithmetic
#define HETERO_DTYPES_every ::hetero::DTypeClass::every
/// @}

/// Whether `t` belongs to class `c`.
constexpr bool in_class(DTypeClass c, DType t) noexcept {
  switch (c) {
    case DTypeClass::floating:
      return is_floating_point(t);
    case DTypeClass::numeric:
      return is_floating_point(t) || is_integral(t);
    case DTypeClass::arithmetic:
      return t != DType::bool_;
    case DTypeClass::every:
      return true;
  }
  return false;
}

/// The families of kernels a Backend implements, one row each (the op families are data, as
/// the ops are; Note [Op tables]): _(family, since, optional, count, name, op_since, dtypes)
/// - family: the OpFamily enumerator and its name;
/// - since: the interface minor that added the family (a translation unit of an older target
///   minor counts no codes in it);
/// - optional: `optional` where no table defines the family, so a backend runs it only where
///   its supports() opts in and the core composes it from the others elsewhere (softmax,
///   minor 3; conv2d, minor 8 (its bias code minor 15), composed from cast, gemm and binary:
///   Note [Convolution as GEMM]; batch_norm, minor 13, composed from reduce and binary: Note [Batch
///   norm kernels]; pool2d, minor 13 (average pooling's codes minor 14), composed from window views
///   and reductions; conv3d, minor 16, composed from conv2d: Note [3-d ops from 2-d ones]);
///   `required` otherwise;
/// - count: its op codes at this translation unit's target minor (1 for a one-op family);
/// - name, op_since, dtypes: of the op with code `code` (expressions of `code`; the table
///   families read their rows' columns).
/// `ternary` (minor 4) is a table family like unary and binary; `gather` and `scatter_add`
/// (minor 6) are one kernel each, for every dtype (Backend::gather, Backend::scatter_add).
/// Every function below that asks about a family (op_count, op_name, op_since, op_dtypes,
/// table_defines) is generated from these rows: a new family is one row, appended.
// clang-format off
#define HETERO_FORALL_OP_FAMILIES(_)                                                                                   \
  _(fill,        0, required, 1,                       "fill",              0,                   DTypeClass::every)    \
  _(cast,        0, required, 1,                       "cast",              0,                   DTypeClass::every)    \
  _(unary,       0, required, kUnaryOpCount,           kUnaryNames[code],   kUnarySince[code],   kUnaryDTypes[code])   \
  _(binary,      0, required, kBinaryOpCount,          kBinaryNames[code],  kBinarySince[code],  kBinaryDTypes[code])  \
  _(reduce,      0, required, kReduceOpCount,          kReduceNames[code],  kReduceSince[code],  kReduceDTypes[code])  \
  _(random,      0, required, count_of(kRandomNames),  kRandomNames[code],  0,                   DTypeClass::floating) \
  _(gemm,        0, required, 1,                       "gemm",              0,                   DTypeClass::floating) \
  _(softmax,     3, optional, count_of(kSoftmaxNames), kSoftmaxNames[code], 3,                   DTypeClass::floating) \
  _(ternary,     4, required, kTernaryOpCount,         kTernaryNames[code], kTernarySince[code], kTernaryDTypes[code]) \
  _(gather,      6, required, 1,                       "gather",            6,                   DTypeClass::every)    \
  _(scatter_add, 6, required, 1,                       "scatter_add",       6,                   DTypeClass::every)    \
  _(conv2d,      8, optional, kConv2dOpCount,          kConv2dNames[code],  kConv2dSince[code],  DTypeClass::floating) \
  _(batch_norm, 13, optional, count_of(kBatchNormNames), kBatchNormNames[code], 13,           DTypeClass::floating) \
  _(pool2d,     13, optional, kPool2dOpCount,          kPool2dNames[code],  kPool2dSince[code],  DTypeClass::floating) \
  _(conv3d,     16, optional, count_of(kConv3dNames),  kConv3dNames[code],  16,                  DTypeClass::floating)
// clang-format on
#define HETERO_FAMILY_IS_OPTIONAL_optional true
#define HETERO_FAMILY_IS_OPTIONAL_required false

/// The op families (HETERO_FORALL_OP_FAMILIES); each names its ops by a code (the op's enum
/// value, 0 where the family has one op).
enum class OpFamily : std::uint8_t {
#define HETERO_OP_FAMILY_ENUMERATOR(family, ...) family,
  HETERO_FORALL_OP_FAMILIES(HETERO_OP_FAMILY_ENUMERATOR)
#undef HETERO_OP_FAMILY_ENUMERATOR
};
/// The number of op families.
inline constexpr int kOpFamilyCount = 0
#define HETERO_OP_FAMILY_COUNT(...) +1
    HETERO_FORALL_OP_FAMILIES(HETERO_OP_FAMILY_COUNT);
#undef HETERO_OP_FAMILY_COUNT
/// The last OpFamily (the families are numbered 0 to kLastOpFamily).
inline constexpr OpFamily kLastOpFamily = static_cast<OpFamily>(kOpFamilyCount - 1);

/// One op of one family, as Backend::supports() is asked about it.
struct OpRef {
  OpFamily family = OpFamily::fill;  ///< the family (which Backend method runs the op)
  std::uint8_t code = 0;             ///< the op's enum value in its family (0 for one-op families)

  /// fill's op.
  constexpr OpRef() = default;
  /// Op `c` of family `f`.
  constexpr OpRef(OpFamily f, std::uint8_t c = 0) : family(f), code(c) {}  // NOLINT
  /// The op `op` of its family (implicit, so that supports(UnaryOp::exp, ...) reads as it
  /// says).
  /// @{
  constexpr OpRef(UnaryOp op) : family(OpFamily::unary), code(static_cast<std::uint8_t>(op)) {}
  constexpr OpRef(BinaryOp op) : family(OpFamily::binary), code(static_cast<std::uint8_t>(op)) {}
  constexpr OpRef(ReductionOp op) : family(OpFamily::reduce), code(static_cast<std::uint8_t>(op)) {}
  constexpr OpRef(RandomDistribution d)
      : family(OpFamily::random), code(static_cast<std::uint8_t>(d)) {}
  constexpr OpRef(SoftmaxOp op)  // NOLINT
      : family(OpFamily::softmax), code(static_cast<std::uint8_t>(op)) {}
  constexpr OpRef(TernaryOp op)  // NOLINT
      : family(OpFamily::ternary), code(static_cast<std::uint8_t>(op)) {}
  constexpr OpRef(Conv2dOp op)  // NOLINT
      : family(OpFamily::conv2d), code(static_cast<std::uint8_t>(op)) {}
  /// @}
  /// The batch normalisation op `op` (OpFamily::batch_norm).
  constexpr OpRef(BatchNormOp op)  // NOLINT
      : family(OpFamily::batch_norm), code(static_cast<std::uint8_t>(op)) {}
  /// The pooling op `op` (OpFamily::pool2d).
  constexpr OpRef(Pool2dOp op)  // NOLINT
      : family(OpFamily::pool2d), code(static_cast<std::uint8_t>(op)) {}
  /// The 3-d convolution op `op` (OpFamily::conv3d).
  constexpr OpRef(Conv3dOp op)  // NOLINT
      : family(OpFamily::conv3d), code(static_cast<std::uint8_t>(op)) {}
  /// Same family and code.
  friend constexpr bool operator==(OpRef, OpRef) = default;
};

namespace op_table_detail {
#define HETERO_OP_NAME_ROW(name, ...) #name,
#define HETERO_OP_IS_COMPARISON_ROW(name, since, dtypes, ...) HETERO_IS_COMPARISON_##dtypes,
#define HETERO_IS_COMPARISON_arithmetic false
#define HETERO_IS_COMPARISON_floating false
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
#undef HETERO_IS_COMPARISON_floating
#undef HETERO_IS_COMPARISON_comparison
#undef HETERO_OP_NAME_ROW
#undef HETERO_OP_SINCE_ROW
#undef HETERO_OP_DTYPES_ROW
#define HETERO_OP_FAMILY_NAME(family, ...) #family,
inline constexpr std::string_view kFamilyNames[] = {
    HETERO_FORALL_OP_FAMILIES(HETERO_OP_FAMILY_NAME)};
#undef HETERO_OP_FAMILY_NAME
inline constexpr std::string_view kRandomNames[] = {"rand", "randn"};
inline constexpr std::string_view kSoftmaxNames[] = {"softmax", "log_softmax"};
/// The names of the Conv2dOp codes, as profiler events and errors print them.
inline constexpr std::string_view kConv2dNames[] = {"conv2d", "conv2d_backward_input",
                                                    "conv2d_backward_weight", "conv2d_bias"};
/// The interface minor that added each Conv2dOp code.
inline constexpr int kConv2dSince[] = {8, 8, 8, 15};
/// The Conv2dOp codes of the minor this translation unit targets.
inline constexpr int kConv2dOpCount = HETERO_TARGET_INTERFACE_MINOR >= 15 ? 4 : 3;
/// The names of the BatchNormOp codes, as profiler events and errors print them.
inline constexpr std::string_view kBatchNormNames[] = {"batch_norm", "batch_norm_backward"};
/// The names of the Pool2dOp codes, as profiler events and errors print them.
inline constexpr std::string_view kPool2dNames[] = {"max_pool2d", "max_pool2d_backward",
                                                    "avg_pool2d", "avg_pool2d_backward"};
/// The interface minor that added each Pool2dOp code.
inline constexpr int kPool2dSince[] = {13, 13, 14, 14};
/// The Pool2dOp codes of the minor this translation unit targets.
inline constexpr int kPool2dOpCount = HETERO_TARGET_INTERFACE_MINOR >= 14 ? 4 : 2;
/// The names of the Conv3dOp codes, as profiler events and errors print them.
inline constexpr std::string_view kConv3dNames[] = {"conv3d", "conv3d_backward_input",
                                                    "conv3d_backward_weight"};
static_assert(std::size(kRandomNames) == static_cast<std::size_t>(RandomDistribution::normal) + 1,
              "kRandomNames needs one name per RandomDistribution");
static_assert(std::size(kSoftmaxNames) == static_cast<std::size_t>(SoftmaxOp::log_softmax) + 1,
              "kSoftmaxNames needs one name per SoftmaxOp");
static_assert(std::size(kConv2dNames) == static_cast<std::size_t>(Conv2dOp::forward_bias) + 1 &&
                  std::size(kConv2dSince) == std::size(kConv2dNames),
              "kConv2dNames and kConv2dSince need one entry per Conv2dOp");
static_assert(std::size(kConv3dNames) == static_cast<std::size_t>(Conv3dOp::backward_weight) + 1,
              "kConv3dNames needs one name per Conv3dOp");
static_assert(std::size(kBatchNormNames) == static_cast<std::size_t>(BatchNormOp::backward) + 1,
              "kBatchNormNames needs one name per BatchNormOp");
static_assert(std::size(kPool2dNames) == static_cast<std::size_t>(Pool2dOp::avg_backward) + 1 &&
                  std::size(kPool2dSince) == std::size(kPool2dNames),
              "kPool2dNames and kPool2dSince need one entry per Pool2dOp");
/// The number of names of a family's list, as an op count.
template <class T, std::size_t N>
constexpr int count_of(const T (&)[N]) noexcept {
  return static_cast<int>(N);
}

// Each row's `since` is its group's minor, passed by the group lists of op_table.hpp (it
// cannot disagree). The groups must be listed oldest first, so that a newer group's codes
// come after every older one's (old plugins keep their numbers).
constexpr bool non_decreasing(const int* since, std::size_t n) noexcept {
  for (std::size_t i = 1; i < n; ++i)
    if (since[i] < since[i - 1]) return false;
  return true;
}
static_assert(non_decreasing(kUnarySince, std::size(kUnarySince)),
              "HETERO_UNARY_OP_GROUPS: groups must be listed oldest first");
static_assert(non_decreasing(kBinarySince, std::size(kBinarySince)),
              "HETERO_BINARY_OP_GROUPS: groups must be listed oldest first");
static_assert(non_decreasing(kReduceSince, std::size(kReduceSince)),
              "HETERO_REDUCE_OP_GROUPS: groups must be listed oldest first");
static_assert(non_decreasing(kTernarySince, std::size(kTernarySince)),
              "HETERO_TERNARY_OP_GROUPS: groups must be listed oldest first");
}  // namespace op_table_detail

/// Number of op codes of `family` at this translation unit's target minor (1 for fill, cast,
/// gemm, gather and scatter_add; 0 for a family newer than the minor).
constexpr int op_count(OpFamily family) noexcept {
  using namespace op_table_detail;  // the count column names the tables' counts
  switch (family) {
#define HETERO_OP_FAMILY_COUNT_CASE(family, since, optional, count, ...) \
  case OpFamily::family:                                                 \
    return HETERO_TARGET_INTERFACE_MINOR >= (since) ? (count) : 0;
    HETERO_FORALL_OP_FAMILIES(HETERO_OP_FAMILY_COUNT_CASE)
#undef HETERO_OP_FAMILY_COUNT_CASE
  }
  return 0;  // not reached: the cases come from the same rows as the enumerators
}

/// Whether `op` names an op of this translation unit's tables (its code is below the count).
constexpr bool op_known(OpRef op) noexcept {
  return op.family <= kLastOpFamily && op.code < op_count(op.family);
}

/// The op's name as torch spells it ("exp", "maximum", "argmax"; "fill", "cast", "gemm",
/// "rand", "randn"); "unknown op" for a code this build's tables lack.
constexpr std::string_view op_name(OpRef op) noexcept {
  if (!op_known(op)) return "unknown op";
  using namespace op_table_detail;
  [[maybe_unused]] const int code = op.code;
  switch (op.family) {
#define HETERO_OP_FAMILY_NAME_CASE(family, since, optional, count, name, ...) \
  case OpFamily::family:                                                      \
    return name;
    HETERO_FORALL_OP_FAMILIES(HETERO_OP_FAMILY_NAME_CASE)
#undef HETERO_OP_FAMILY_NAME_CASE
  }
  return "unknown op";  // not reached
}

/// The name of a row of each table, without the family switch of op_name(OpRef).
/// @{
constexpr std::string_view op_name(UnaryOp op) noexcept {
  const auto i = static_cast<int>(op);
  return i < kUnaryOpCount ? op_table_detail::kUnaryNames[i] : "unknown op";
}
constexpr std::string_view op_name(BinaryOp op) noexcept {
  const auto i = static_cast<int>(op);
  return i < kBinaryOpCount ? op_table_detail::kBinaryNames[i] : "unknown op";
}
constexpr std::string_view op_name(ReductionOp op) noexcept {
  const auto i = static_cast<int>(op);
  return i < kReduceOpCount ? op_table_detail::kReduceNames[i] : "unknown op";
}
constexpr std::string_view op_name(TernaryOp op) noexcept {
  const auto i = static_cast<int>(op);
  return i < kTernaryOpCount ? op_table_detail::kTernaryNames[i] : "unknown op";
}
/// @}

/// Whether a binary row is a comparison (dtypes `comparison`: the kernel writes 1 or 0 in the
/// operands' dtype and the core returns bool).
constexpr bool is_comparison(BinaryOp op) noexcept {
  const auto i = static_cast<int>(op);
  return i < kBinaryOpCount && op_table_detail::kBinaryIsComparison[i];
}

/// The interface minor that added `op` (a table row's `since`; the family's for the others).
constexpr int op_since(OpRef op) noexcept {
  if (!op_known(op)) return 1 << 30;
  using namespace op_table_detail;
  [[maybe_unused]] const int code = op.code;
  switch (op.family) {
#define HETERO_OP_FAMILY_SINCE_CASE(family, since, optional, count, name, op_since, ...) \
  case OpFamily::family:                                                                 \
    return op_since;
    HETERO_FORALL_OP_FAMILIES(HETERO_OP_FAMILY_SINCE_CASE)
#undef HETERO_OP_FAMILY_SINCE_CASE
  }
  return 1 << 30;  // not reached
}

/// The dtypes the tables define `op` for (the `dtypes` column of its row, or its family's:
/// every dtype for fill, cast, gather and scatter_add; floating for random and gemm, though
/// random() is asked for float32 and float64 only: the core draws the 16-bit types in
/// float32 and casts, see table_defines). `op` must be known (op_known).
constexpr DTypeClass op_dtypes(OpRef op) noexcept {
  using namespace op_table_detail;
  [[maybe_unused]] const int code = op.code;
  switch (op.family) {
#define HETERO_OP_FAMILY_DTYPES_CASE(family, since, optional, count, name, op_since, dtypes) \
  case OpFamily::family:                                                                     \
    return dtypes;
    HETERO_FORALL_OP_FAMILIES(HETERO_OP_FAMILY_DTYPES_CASE)
#undef HETERO_OP_FAMILY_DTYPES_CASE
  }
  return DTypeClass::every;  // not reached
}

/// Whether `family` is optional (HETERO_FORALL_OP_FAMILIES' `optional` column): no table
/// defines it, and a backend runs it only where its supports() opts in.
constexpr bool is_optional(OpFamily family) noexcept {
  switch (family) {
#define HETERO_OP_FAMILY_OPTIONAL_CASE(family, since, optional, ...) \
  case OpFamily::family:                                             \
    return HETERO_FAMILY_IS_OPTIONAL_##optional;
    HETERO_FORALL_OP_FAMILIES(HETERO_OP_FAMILY_OPTIONAL_CASE)
#undef HETERO_OP_FAMILY_OPTIONAL_CASE
  }
  return false;  // not reached
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
  if (is_optional(op.family)) return false;  // a backend opts in
  if (static_cast<int>(dtype) >= kDTypeCount || dtype_since(dtype) > HETERO_TARGET_INTERFACE_MINOR)
    return false;
  return op_known(op) && in_class(op_dtypes(op), dtype);
}

}  // namespace hetero
