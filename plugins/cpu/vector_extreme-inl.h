// SPDX-License-Identifier: Apache-2.0
// The minimum or maximum of a dense run of float or double (or float16 / bfloat16 widened to
// float32) with a separate NaN test: the reductions' kernel, and softmax's first pass.
// Highway's per-target header protocol: included by each vector_*.cpp once per target
// (foreach_target.h toggles HWY_TARGET_TOGGLE), so the guard flips instead of closing.
#if defined(HETERO_CPU_VECTOR_EXTREME_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HETERO_CPU_VECTOR_EXTREME_INL_H_
#undef HETERO_CPU_VECTOR_EXTREME_INL_H_
#else
#define HETERO_CPU_VECTOR_EXTREME_INL_H_
#endif
#include <cstdint>
#include <cstring>

#include <hwy/highway.h>

#include "prefetch_ahead.hpp"
#include "vector_convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Min or max over n >= 1 dense elements in four vector accumulators. NaNs are noted apart
// (the instructions' NaN rules differ by target; the caller's rule is "any NaN wins"), in
// two passes: the fast one folds the elements times 0 into a sum, which turns NaN on a NaN
// or an infinity (three fused multiply-adds per four vectors instead of a compare and an or
// per vector: the check costs memory-bound time, 7-8% for one per vector and 4% for these
// three, measured on 64 MiB float32 with 2 threads); only when it does are the elements
// tested one by one for NaN.
// load(i) gives the Lanes(d) elements from i as d's lanes, element(i) the one at i; base is
// the first element, of `bytes` bytes each, prefetched ahead (Note [Prefetching a dense
// scan]) through the first `readable` >= n elements from base (Note [Prefetching into the next
// row], vector_reduce.cpp).
template <bool Min, class D, class Load, class Element>
HWY_INLINE void extreme_lanes(D d, std::int64_t n, const void* base, std::int64_t bytes, Load load,
                              Element element, double* result, bool* has_nan,
                              std::int64_t readable) {
  using T = hn::TFromD<D>;
  using V = hn::Vec<D>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  auto pick = [](V a, V b) { return Min ? hn::Min(a, b) : hn::Max(a, b); };
  const V first = hn::Set(d, element(0)), zero = hn::Zero(d);
  V a0 = first, a1 = first, a2 = first, a3 = first;
  V z0 = zero, z1 = zero;  // NaN once a NaN or an infinity was seen
  PrefetchRead prefetch(base, std::max(n, readable) * bytes);
  std::int64_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    prefetch.through((i + 4 * lanes) * bytes);
    const V x0 = load(i), x1 = load(i + lanes);
    const V x2 = load(i + 2 * lanes), x3 = load(i + 3 * lanes);
    a0 = pick(a0, x0);
    a1 = pick(a1, x1);
    a2 = pick(a2, x2);
    a3 = pick(a3, x3);
    // x0 * x1 + x2 covers three vectors in one instruction; an overflow to infinity
    // (|x| > ~1.8e19 in float32) only costs a rescan, it hides no NaN.
    z0 = hn::MulAdd(hn::MulAdd(x0, x1, x2), zero, z0);
    z1 = hn::MulAdd(x3, zero, z1);
  }
  for (; i + lanes <= n; i += lanes) {
    const V x = load(i);
    a0 = pick(a0, x);
    z0 = hn::MulAdd(x, zero, z0);
  }
  // The lanes folded in registers: a store and a loop over its lanes made each short row (an
  // argmax(1) over rows of 49) wait for the store to reach the loads.
  const V all = pick(pick(a0, a1), pick(a2, a3));
  T best;
  if constexpr (Min)
    best = hn::GetLane(hn::MinOfLanes(d, all));
  else
    best = hn::GetLane(hn::MaxOfLanes(d, all));
  bool any_nan = false;
  if (!hn::AllFalse(d, hn::IsNaN(z0 + z1))) {  // a NaN or an infinity: look for NaNs
    auto nan = hn::IsNaN(first);
    for (std::int64_t k = 0; k + lanes <= i; k += lanes) nan = hn::Or(nan, hn::IsNaN(load(k)));
    any_nan = !hn::AllFalse(d, nan);
  }
  for (; i < n; ++i) {
    const T x = element(i);
    any_nan = any_nan || x != x;
    best = (Min ? x < best : best < x) ? x : best;
  }
  *result = static_cast<double>(best);
  *has_nan = any_nan;
}

template <bool Min, class T>
void extreme_dense(const T* in, std::int64_t n, double* result, bool* has_nan,
                   std::int64_t readable = 0) {
  const hn::ScalableTag<T> d;
  extreme_lanes<Min>(
      d, n, in, static_cast<std::int64_t>(sizeof(T)),
      [&](std::int64_t i) { return hn::LoadU(d, in + i); }, [&](std::int64_t i) { return in[i]; },
      result, has_nan, readable);
}

// n >= 1 elements of 16-bit storage S, each widened to float32 as it is loaded (Note [16-bit
// in registers]).
template <bool Min, DType S>
void extreme_dense(const Bits16<S>* in, std::int64_t n, double* result, bool* has_nan,
                   std::int64_t readable = 0) {
  const hn::ScalableTag<float> d;
  extreme_lanes<Min>(
      d, n, in, 2, [&](std::int64_t i) { return widen(d, in + i); },
      [&](std::int64_t i) { return value_of(in[i]); }, result, has_nan, readable);
}

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#endif  // HETERO_CPU_VECTOR_EXTREME_INL_H_
