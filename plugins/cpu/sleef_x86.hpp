// SPDX-License-Identifier: Apache-2.0
#pragma once
// The few SLEEF 3.5 functions the vector kernels call (Note [Vector kernels]), declared
// here because <sleef.h> declares its 256- and 512-bit functions only when the whole file
// is compiled with -mavx / -mavx512f (`#ifdef __AVX512F__`), while Highway compiles one
// file for several instruction sets through target attributes. Each function is the
// 1.0-ulp ("u10") variant for one instruction set; call it only from code compiled for
// that set (a Highway target at least as new), so that vector arguments travel in
// vector registers as the library expects. The names and signatures are SLEEF's
// (libsleef-dev's sleef.h, "Sleef_<fn><f|d><lanes>_u10<isa>").
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

extern "C" {
#define HETERO_SLEEF_DECLARE(fn)             \
  __m128 Sleef_##fn##f4_u10sse4(__m128);     \
  __m128d Sleef_##fn##d2_u10sse4(__m128d);   \
  __m256 Sleef_##fn##f8_u10avx2(__m256);     \
  __m256d Sleef_##fn##d4_u10avx2(__m256d);   \
  __m512 Sleef_##fn##f16_u10avx512f(__m512); \
  __m512d Sleef_##fn##d8_u10avx512f(__m512d);
HETERO_SLEEF_DECLARE(exp)
HETERO_SLEEF_DECLARE(log)
HETERO_SLEEF_DECLARE(tanh)
HETERO_SLEEF_DECLARE(sin)
HETERO_SLEEF_DECLARE(cos)
HETERO_SLEEF_DECLARE(log1p)
HETERO_SLEEF_DECLARE(expm1)
HETERO_SLEEF_DECLARE(erf)
#undef HETERO_SLEEF_DECLARE
// The 3.5-ulp ("u35") float64 log and cos, for vec::random's Box-Muller, whose tolerance
// (the conformance suite's 1e-12) is far above 3.5 ulp.
#define HETERO_SLEEF_DECLARE_U35_D(fn)     \
  __m128d Sleef_##fn##d2_u35sse4(__m128d); \
  __m256d Sleef_##fn##d4_u35avx2(__m256d); \
  __m512d Sleef_##fn##d8_u35avx512f(__m512d);
HETERO_SLEEF_DECLARE_U35_D(log)
HETERO_SLEEF_DECLARE_U35_D(cos)
#undef HETERO_SLEEF_DECLARE_U35_D
}
#endif
