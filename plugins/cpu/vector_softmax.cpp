// SPDX-License-Identifier: Apache-2.0
// The softmax kernel (vec::softmax): one dense line, softmax or log_softmax.
// Highway compiles this file once per target (foreach_target.h includes it again for each,
// with HWY_NAMESPACE naming the target); the part under HWY_ONCE exports the per-target
// functions and dispatches to the best one for the running CPU (Note [Vector kernels]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <type_traits>

#include "vector_kernels.hpp"

// clang-format off: the order of these includes is Highway's protocol.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vector_softmax.cpp"
#include <hwy/foreach_target.h>
#include <hwy/highway.h>
// clang-format on

#include "vector_extreme-inl.h"
#include "vector_map-inl.h"
#include "vector_sleef-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
template <class T>
bool softmax_dense(bool, const T*, T*, std::int64_t) {
  return false;  // one lane: no vector exp, no halves
}
#else
// Adds the lanes of v (float or double) to the float64 lanes of sum.
template <class DD, class V>
HWY_INLINE hn::Vec<DD> add_widened(DD dd, hn::Vec<DD> sum, V v) {
  if constexpr (sizeof(hn::TFromV<V>) == 8) {
    return sum + v;
  } else {
    const hn::Half<hn::DFromV<V> > dh;
    return sum + hn::PromoteTo(dd, hn::LowerHalf(dh, v)) + hn::PromoteTo(dd, hn::UpperHalf(dh, v));
  }
}

template <class T>
bool softmax_dense(bool log, const T* in, T* out, std::int64_t n) {
  if constexpr (!kHasMath) {
    return false;
  } else {
    const hn::ScalableTag<T> d;
    using V = hn::Vec<decltype(d)>;
    // The sum's lanes: float64, as many as T's for double, half as many (widened) for float.
    using DSum = std::conditional_t<sizeof(T) == 8, hn::ScalableTag<double>,
                                    hn::Rebind<double, hn::Half<decltype(d)> > >;
    const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
    double max = 0;
    bool nan = false;
    extreme_dense<false>(in, n, &max, &nan);
    if (nan) {
      std::fill(out, out + n, std::numeric_limits<T>::quiet_NaN());
      return true;
    }
    // x - max: <= 0, or NaN throughout the line when max is +-inf (as the composition).
    const V vmax = hn::Set(d, static_cast<T>(max));
    auto sum = hn::Zero(DSum());
    std::int64_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      const V e = Sleef_exp(hn::LoadU(d, in + i) - vmax);
      if (!log) hn::StoreU(e, d, out + i);
      sum = add_widened(DSum(), sum, e);
    }
    alignas(64) T tail[HWY_MAX_BYTES / sizeof(T)];
    if (i < n) {  // padded with -inf: adds exp(-inf) = 0, or NaN where the line is NaN anyway
      std::fill(std::begin(tail), std::end(tail), -std::numeric_limits<T>::infinity());
      std::copy(in + i, in + n, tail);
      const V e = Sleef_exp(hn::LoadU(d, tail) - vmax);
      hn::StoreU(e, d, tail);
      sum = add_widened(DSum(), sum, e);
    }
    alignas(64) double parts[HWY_MAX_BYTES / 8];
    hn::StoreU(sum, DSum(), parts);
    double total = 0;
    for (std::size_t k = 0; k < hn::Lanes(DSum()); ++k) total += parts[k];
    if (log) {  // (x - max) - log(sum), as torch: max + log(sum) rounded first lost x - max
      const V log_sum = hn::Set(d, static_cast<T>(std::log(total)));
      map1(d, in, out, n, [vmax, log_sum](V x) { return (x - vmax) - log_sum; });
    } else {
      if (i < n) std::copy(tail, tail + (n - i), out + i);
      const V vsum = hn::Set(d, static_cast<T>(total));
      map1(d, out, out, n, [vsum](V e) { return e / vsum; });
    }
    return true;
  }
}

#endif

bool SoftmaxImpl(SoftmaxOp op, DType dtype, const void* in, void* out, std::int64_t n) {
  const bool log = op == SoftmaxOp::log_softmax;
  if (dtype == DType::float32)
    return softmax_dense(log, static_cast<const float*>(in), static_cast<float*>(out), n);
  if (dtype == DType::float64)
    return softmax_dense(log, static_cast<const double*>(in), static_cast<double*>(out), n);
  return false;
}

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hetero::cpu::vec {

HWY_EXPORT(SoftmaxImpl);

bool softmax(SoftmaxOp op, DType dtype, const void* in, void* out, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SoftmaxImpl)(op, dtype, in, out, n);
}

}  // namespace hetero::cpu::vec
#endif
