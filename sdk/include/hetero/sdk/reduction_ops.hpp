// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file reduction_ops.hpp
/// Note [Reduction semantics]: what Backend::reduce computes, written once for every
/// backend (host and CUDA device code) and the conformance reference, as torch does:
/// - sum, mean and norm of floating dtypes (float16, bfloat16, float32, float64)
///   accumulate in double; of integers in int64, wrapping around on overflow (two's
///   complement, as torch's sum of int64). torch.sum of bool, int8, uint8 and int32 gives
///   int64: the core hands such a sum to a backend whose reduces_into() says yes with an
///   int64 `out`, and otherwise converts the input to int64 first; a sum whose `out` has the
///   input's narrow dtype wraps to it; a floating sum or mean into another floating `out`
///   (reduces_into() again: float16 and bfloat16 into float32 on cpu) rounds the double
///   accumulator once, to out's dtype;
/// - mean is sum / count; norm is the 2-norm, sqrt(sum of squares);
/// - max and min: NaN wins (a NaN is both the maximum and the minimum, as torch.max);
/// - argmax: the index of the maximum within the reduced range; among equal values the
///   lowest index, and the first NaN where there is one.
/// The rules are order-independent, so a sequential loop and a tree reduction (CUB) give
/// the same result. A reduction never sees an empty range (the core writes the identity
/// itself, Note [Empty tensors]).
#include <cstdint>
#include <type_traits>

#include <hetero/sdk/half.hpp>
#include <hetero/sdk/host_device.hpp>
#include <hetero/sdk/op_codes.hpp>

namespace hetero {

/// What sums of T accumulate in: double for floating storage types, else std::int64_t.
template <class T>
using reduction_accumulator_t = std::conditional_t<is_floating_storage_v<T>, double, std::int64_t>;

/// How a reduction walks its range (the `kind` column of HETERO_FORALL_REDUCE_OPS).
enum class ReductionKind : std::uint8_t {
  sum,       ///< accumulates x (double or int64), then finish
  squares,   ///< accumulates x * x in double, then finish
  extremum,  ///< keeps the maximum (or minimum: min_reduction) with the NaN rule below
  index,     ///< keeps the position of the maximum
};
#define HETERO_REDUCTION_KIND_sum ::hetero::ReductionKind::sum
#define HETERO_REDUCTION_KIND_squares ::hetero::ReductionKind::squares
#define HETERO_REDUCTION_KIND_extremum ::hetero::ReductionKind::extremum
#define HETERO_REDUCTION_KIND_index ::hetero::ReductionKind::index

/// The kind of `op` (its row's column); host and device.
HETERO_HOST_DEVICE constexpr ReductionKind reduction_kind(ReductionOp op) {
  switch (op) {
#define HETERO_REDUCE_KIND_CASE(name, since, dtypes, kind, ...) \
  case ReductionOp::name:                                       \
    return HETERO_REDUCTION_KIND_##kind;
    HETERO_FORALL_REDUCE_OPS(HETERO_REDUCE_KIND_CASE)
#undef HETERO_REDUCE_KIND_CASE
  }
  return ReductionKind::sum;  // not reached: the core passes table codes only
}

/// Whether an extremum reduction keeps the minimum (min) rather than the maximum.
HETERO_HOST_DEVICE constexpr bool min_reduction(ReductionOp op) { return op == ReductionOp::min; }

/// The result of an accumulating reduction (kind sum or squares) from its accumulator
/// `acc` and the number of elements `count` (>= 1): the row's finish column (mean = acc /
/// count, norm = sqrt(acc), sum = acc). Acc is double or std::int64_t; for the other kinds
/// the result is `acc` unchanged.
template <class Acc>
HETERO_HOST_DEVICE inline Acc reduction_finish(ReductionOp op, Acc acc, std::int64_t count) {
  using std::sqrt;
  switch (op) {
#define HETERO_REDUCE_FINISH_CASE(name, since, dtypes, kind, finish) \
  case ReductionOp::name:                                            \
    return static_cast<Acc>(finish);
    HETERO_FORALL_REDUCE_OPS(HETERO_REDUCE_FINISH_CASE)
#undef HETERO_REDUCE_FINISH_CASE
  }
  (void)count;
  return acc;  // not reached
}

/// x != x: true only for NaN (false for every integer).
template <class T>
HETERO_HOST_DEVICE inline bool reduction_is_nan(T x) {
  return x != x;
}

/// Integer sums wrap around: a + b modulo 2^64, without signed overflow.
HETERO_HOST_DEVICE inline std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

/// True when `candidate`, the element at index `candidate_index`, takes the place of
/// `current` (at `current_index`) as the maximum (the minimum when `min`): a NaN beats a
/// number, the lower index wins among equal values and among NaNs.
template <class T>
HETERO_HOST_DEVICE inline bool extremum_replaces(T candidate, std::int64_t candidate_index,
                                                 T current, std::int64_t current_index, bool min) {
  if (reduction_is_nan(current))
    return reduction_is_nan(candidate) && candidate_index < current_index;
  if (reduction_is_nan(candidate)) return true;
  if (min ? candidate < current : current < candidate) return true;
  return candidate == current && candidate_index < current_index;
}

/// The maximum (the minimum when `min`) of two values, NaN winning (the first NaN when
/// both are).
template <class T>
HETERO_HOST_DEVICE inline T extremum(T a, T b, bool min) {
  if (reduction_is_nan(a)) return a;
  if (reduction_is_nan(b)) return b;
  return (min ? b < a : a < b) ? b : a;
}

}  // namespace hetero
