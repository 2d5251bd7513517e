// SPDX-License-Identifier: Apache-2.0
// SLEEF's 1.0-ulp vector functions (Note [Vector kernels]) as Highway vectors of this
// target's width: Sleef_exp(v) etc., and kHasMath, false on targets SLEEF has no build for.
// Highway's per-target header protocol: included by each vector_*.cpp once per target
// (foreach_target.h toggles HWY_TARGET_TOGGLE), so the guard flips instead of closing.
#if defined(HETERO_CPU_VECTOR_SLEEF_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HETERO_CPU_VECTOR_SLEEF_INL_H_
#undef HETERO_CPU_VECTOR_SLEEF_INL_H_
#else
#define HETERO_CPU_VECTOR_SLEEF_INL_H_
#endif
#include "sleef_x86.hpp"

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// SLEEF's u10 variant of the target's width, where one exists.
// The SLEEF symbols of this target's vector width: float and double variants.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#define HETERO_SLEEF_F(fn) Sleef_##fn##f16_u10avx512f
#define HETERO_SLEEF_D(fn) Sleef_##fn##d8_u10avx512f
#define HETERO_SLEEF_D35(fn) Sleef_##fn##d8_u35avx512f
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
#define HETERO_SLEEF_F(fn) Sleef_##fn##f8_u10avx2
#define HETERO_SLEEF_D(fn) Sleef_##fn##d4_u10avx2
#define HETERO_SLEEF_D35(fn) Sleef_##fn##d4_u35avx2
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_SSE4
#define HETERO_SLEEF_F(fn) Sleef_##fn##f4_u10sse4
#define HETERO_SLEEF_D(fn) Sleef_##fn##d2_u10sse4
#define HETERO_SLEEF_D35(fn) Sleef_##fn##d2_u35sse4
#endif
#ifdef HETERO_SLEEF_F
constexpr bool kHasMath = true;
#define HETERO_SLEEF_FN(fn)                                                                    \
  HWY_INLINE hn::Vec<hn::ScalableTag<float>> Sleef_##fn(hn::Vec<hn::ScalableTag<float>> v) {   \
    return {HETERO_SLEEF_F(fn)(v.raw)};                                                        \
  }                                                                                            \
  HWY_INLINE hn::Vec<hn::ScalableTag<double>> Sleef_##fn(hn::Vec<hn::ScalableTag<double>> v) { \
    return {HETERO_SLEEF_D(fn)(v.raw)};                                                        \
  }
// The 3.5-ulp float64 variant (log and cos: vec::random).
#define HETERO_SLEEF_FN_U35_D(fn)                               \
  HWY_INLINE hn::Vec<hn::ScalableTag<double>> Sleef_##fn##_u35( \
      hn::Vec<hn::ScalableTag<double>> v) {                     \
    return {HETERO_SLEEF_D35(fn)(v.raw)};                       \
  }
#else
// No SLEEF build for this target: never called (kHasMath), only type-checked.
constexpr bool kHasMath = false;
#define HETERO_SLEEF_FN(fn)      \
  template <class V>             \
  HWY_INLINE V Sleef_##fn(V v) { \
    return v;                    \
  }
#define HETERO_SLEEF_FN_U35_D(fn)      \
  template <class V>                   \
  HWY_INLINE V Sleef_##fn##_u35(V v) { \
    return v;                          \
  }
#endif
HETERO_SLEEF_FN(exp)
HETERO_SLEEF_FN(log)
HETERO_SLEEF_FN(tanh)
HETERO_SLEEF_FN(sin)
HETERO_SLEEF_FN(cos)
HETERO_SLEEF_FN(log1p)
HETERO_SLEEF_FN(expm1)
HETERO_SLEEF_FN(erf)
#undef HETERO_SLEEF_FN
HETERO_SLEEF_FN_U35_D(log)
HETERO_SLEEF_FN_U35_D(cos)
#undef HETERO_SLEEF_FN_U35_D
#undef HETERO_SLEEF_F
#undef HETERO_SLEEF_D
#undef HETERO_SLEEF_D35

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#endif  // HETERO_CPU_VECTOR_SLEEF_INL_H_
