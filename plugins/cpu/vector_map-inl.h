// SPDX-License-Identifier: Apache-2.0
// Dense loops of the vector kernels (Note [Vector kernels]): a vector function applied
// to n elements with a zero-padded tail.
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

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Elements converted through a float32 block at a time for float16 and bfloat16 input.
constexpr std::int64_t kBlock = 512;

// Applies f(vector) -> vector to n dense elements: whole vectors, then the tail through a
// zero-padded vector-sized buffer (the padding's results are dropped).
template <class D, class F>
HWY_INLINE void map1(D d, const hn::TFromD<D>* in, hn::TFromD<D>* out, std::int64_t n, F f) {
  using T = hn::TFromD<D>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(f(hn::LoadU(d, in + i)), d, out + i);
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
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(f(load(a, a_step, i), load(b, b_step, i)), d, out + i);
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

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#endif  // HETERO_CPU_VECTOR_MAP_INL_H_
