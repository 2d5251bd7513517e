// SPDX-License-Identifier: Apache-2.0
// Dense loops of the vector kernels (Note [Vector kernels]): a vector function applied
// to n elements with a zero-padded tail, on float and double, or on float16 and bfloat16
// through float32 lanes.
// Highway's per-target header protocol: included by each vector_*.cpp once per target
// (foreach_target.h toggles HWY_TARGET_TOGGLE), so the guard flips instead of closing.
#if defined(HETERO_CPU_VECTOR_MAP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HETERO_CPU_VECTOR_MAP_INL_H_
#undef HETERO_CPU_VECTOR_MAP_INL_H_
#else
#define HETERO_CPU_VECTOR_MAP_INL_H_
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

// Applies f(vector) -> vector to n dense elements: whole vectors, then the tail through a
// zero-padded vector-sized buffer (the padding's results are dropped). The output's lines
// are prefetched for writing ahead of the stores (Note [Prefetching a dense scan]), as in
// map2; the 16-bit maps measured otherwise (map2_16).
template <class D, class F>
HWY_INLINE void map1(D d, const hn::TFromD<D>* in, hn::TFromD<D>* out, std::int64_t n, F f) {
  using T = hn::TFromD<D>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  PrefetchWrite prefetch(out, n * static_cast<std::int64_t>(sizeof(T)));
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    prefetch.through((i + lanes) * static_cast<std::int64_t>(sizeof(T)));
    hn::StoreU(f(hn::LoadU(d, in + i)), d, out + i);
  }
  if (i < n) {
    alignas(64) T buf[HWY_MAX_BYTES / sizeof(T)] = {};
    std::memcpy(buf, in + i, static_cast<std::size_t>(n - i) * sizeof(T));
    hn::StoreU(f(hn::LoadU(d, buf)), d, buf);
    std::memcpy(out + i, buf, static_cast<std::size_t>(n - i) * sizeof(T));
  }
}

// out[i] = f(a[i * a_step], b[i * b_step]), steps 0 or 1, as map1.
template <class D, class F>
HWY_INLINE void map2(D d, const hn::TFromD<D>* a, int a_step, const hn::TFromD<D>* b, int b_step,
                     hn::TFromD<D>* out, std::int64_t n, F f) {
  using T = hn::TFromD<D>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  auto load = [&](const T* p, int step, std::int64_t i) {
    return step == 0 ? hn::Set(d, *p) : hn::LoadU(d, p + i);
  };
  PrefetchWrite prefetch(out, n * static_cast<std::int64_t>(sizeof(T)));
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    prefetch.through((i + lanes) * static_cast<std::int64_t>(sizeof(T)));
    hn::StoreU(f(load(a, a_step, i), load(b, b_step, i)), d, out + i);
  }
  if (i < n) {
    alignas(64) T xa[HWY_MAX_BYTES / sizeof(T)] = {};
    alignas(64) T xb[HWY_MAX_BYTES / sizeof(T)] = {};
    const std::size_t rest = static_cast<std::size_t>(n - i);
    for (std::size_t k = 0; k < rest; ++k) {
      xa[k] = a[a_step * (i + static_cast<std::int64_t>(k))];
      xb[k] = b[b_step * (i + static_cast<std::int64_t>(k))];
    }
    hn::StoreU(f(hn::LoadU(d, xa), hn::LoadU(d, xb)), d, xa);
    std::memcpy(out + i, xa, rest * sizeof(T));
  }
}

// Note [16-bit in registers]: a float16 or bfloat16 op runs the float32 rule on each vector
// as it is loaded (widen), and rounds each result once as it is stored (narrow), so that
// the operands and the result stream through registers together. Converting a block of
// 512 elements of each operand to float32 arrays first, then applying the op, then
// narrowing the block (the earlier design) gave the same bits at 0.55 of the speed: a
// 4096 x 4096 float16 add took 5.9 ms against 3.3 ms for a plain F16C loop on a 2-core
// Zen 3, whose loads of one operand at a time kept too few misses in flight.

// map1 over n elements of 16-bit storage S (float16 or bfloat16): f applied to float32
// vectors (Note [16-bit in registers]), the tail through a zero-padded buffer.
template <DType S, class DF, class F>
HWY_INLINE void map1_16(DF df, const std::uint16_t* in, std::uint16_t* out, std::int64_t n, F f) {
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(df));
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) narrow<S>(df, f(widen<S>(df, in + i)), out + i);
  if (i < n) {
    alignas(64) std::uint16_t buf[HWY_MAX_BYTES / 4] = {};
    std::memcpy(buf, in + i, static_cast<std::size_t>(n - i) * 2);
    narrow<S>(df, f(widen<S>(df, buf)), buf);
    std::memcpy(out + i, buf, static_cast<std::size_t>(n - i) * 2);
  }
}

// map2 over 16-bit storage S, as map1_16; an operand with step 0 is one element, widened
// once.
template <DType S, class DF, class F>
HWY_INLINE void map2_16(DF df, const std::uint16_t* a, int a_step, const std::uint16_t* b,
                        int b_step, std::uint16_t* out, std::int64_t n, F f) {
  using V = hn::Vec<DF>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(df));
  auto one = [&](const std::uint16_t* p) { return hn::Set(df, widen_one<S>(*p)); };
  const V a0 = a_step == 0 ? one(a) : hn::Zero(df), b0 = b_step == 0 ? one(b) : hn::Zero(df);
  std::int64_t i = 0;
  if (a_step != 0 && b_step != 0) {
    // Both operands read ahead (Note [16-bit in registers]): 4096 x 4096 float16 adds, 0.88
    // -> 1.06 of a plain F16C loop. Not the output, and not one dense operand alone: there
    // the prefetches cost 10-15% (x * 2 in float16).
    PrefetchRead prefetch_a(a, n * 2), prefetch_b(b, n * 2);
    for (; i + lanes <= n; i += lanes) {
      prefetch_a.through((i + lanes) * 2);
      prefetch_b.through((i + lanes) * 2);
      narrow<S>(df, f(widen<S>(df, a + i), widen<S>(df, b + i)), out + i);
    }
  } else if (a_step != 0) {
    for (; i + lanes <= n; i += lanes) narrow<S>(df, f(widen<S>(df, a + i), b0), out + i);
  } else if (b_step != 0) {
    for (; i + lanes <= n; i += lanes) narrow<S>(df, f(a0, widen<S>(df, b + i)), out + i);
  } else {
    for (; i + lanes <= n; i += lanes) narrow<S>(df, f(a0, b0), out + i);
  }
  if (i < n) {
    alignas(64) std::uint16_t xa[HWY_MAX_BYTES / 4] = {};
    alignas(64) std::uint16_t xb[HWY_MAX_BYTES / 4] = {};
    const std::size_t rest = static_cast<std::size_t>(n - i);
    for (std::size_t k = 0; k < rest; ++k) {
      xa[k] = a[a_step * (i + static_cast<std::int64_t>(k))];
      xb[k] = b[b_step * (i + static_cast<std::int64_t>(k))];
    }
    narrow<S>(df, f(widen<S>(df, xa), widen<S>(df, xb)), xa);
    std::memcpy(out + i, xa, rest * 2);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#endif  // HETERO_CPU_VECTOR_MAP_INL_H_
