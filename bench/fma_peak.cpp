// SPDX-License-Identifier: Apache-2.0
#include "fma_peak.hpp"

#include <immintrin.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace bench {
namespace {

// 12 independent accumulators: enough to cover the FMA latency (4 cycles) on two ports.
// One function per ISA and type: target attributes do not reach templates or lambdas.
#define HETERO_FMA_CHAINS(V, SET1, FMA, LANES)                                           \
  const V mul = SET1(0.999), add = SET1(1e-4);                                           \
  /* distinct starting values: identical chains would be computed once */                \
  V a0 = SET1(1.00), a1 = SET1(1.01), a2 = SET1(1.02), a3 = SET1(1.03), a4 = SET1(1.04), \
    a5 = SET1(1.05), a6 = SET1(1.06), a7 = SET1(1.07), a8 = SET1(1.08), a9 = SET1(1.09), \
    a10 = SET1(1.10), a11 = SET1(1.11);                                                  \
  for (std::int64_t i = 0; i < it; ++i) {                                                \
    a0 = FMA(a0, mul, add);                                                              \
    a1 = FMA(a1, mul, add);                                                              \
    a2 = FMA(a2, mul, add);                                                              \
    a3 = FMA(a3, mul, add);                                                              \
    a4 = FMA(a4, mul, add);                                                              \
    a5 = FMA(a5, mul, add);                                                              \
    a6 = FMA(a6, mul, add);                                                              \
    a7 = FMA(a7, mul, add);                                                              \
    a8 = FMA(a8, mul, add);                                                              \
    a9 = FMA(a9, mul, add);                                                              \
    a10 = FMA(a10, mul, add);                                                            \
    a11 = FMA(a11, mul, add);                                                            \
  }                                                                                      \
  const V acc[12] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11};                  \
  sink(acc, sizeof(acc));                                                                \
  return it * 12 * (LANES)

volatile unsigned char g_sink = 0;  // keeps the results alive
void sink(const void* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) g_sink = g_sink ^ static_cast<const unsigned char*>(p)[i];
}

__attribute__((target("avx512f"))) std::int64_t avx512_f32(std::int64_t it) {
  HETERO_FMA_CHAINS(__m512, _mm512_set1_ps, _mm512_fmadd_ps, 16);
}
__attribute__((target("avx512f"))) std::int64_t avx512_f64(std::int64_t it) {
  HETERO_FMA_CHAINS(__m512d, _mm512_set1_pd, _mm512_fmadd_pd, 8);
}
__attribute__((target("avx2,fma"))) std::int64_t avx2_f32(std::int64_t it) {
  HETERO_FMA_CHAINS(__m256, _mm256_set1_ps, _mm256_fmadd_ps, 8);
}
__attribute__((target("avx2,fma"))) std::int64_t avx2_f64(std::int64_t it) {
  HETERO_FMA_CHAINS(__m256d, _mm256_set1_pd, _mm256_fmadd_pd, 4);
}
double scalar_fma(double a, double b, double c) { return a * b + c; }
std::int64_t scalar_f64(std::int64_t it) {
  HETERO_FMA_CHAINS(double, static_cast<double>, scalar_fma, 1);
}

}  // namespace

FmaPeak measure_fma_peak(bool f64, int threads, double seconds) {
  FmaPeak peak;
  std::int64_t (*kernel)(std::int64_t) = scalar_f64;
  peak.isa = "scalar";
  if (__builtin_cpu_supports("avx512f")) {
    kernel = f64 ? avx512_f64 : avx512_f32;
    peak.isa = "avx512";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    kernel = f64 ? avx2_f64 : avx2_f32;
    peak.isa = "avx2";
  }
  std::vector<double> rates(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      kernel(100000);  // warm up (frequency, caches)
      std::int64_t fmas = 0, it = 1 << 16;
      const auto t0 = std::chrono::steady_clock::now();
      double elapsed = 0;
      while (elapsed < seconds) {
        fmas += kernel(it);
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      rates[static_cast<std::size_t>(t)] = 2.0 * static_cast<double>(fmas) / elapsed;
    });
  for (auto& th : pool) th.join();
  for (double r : rates) peak.gflops += r / 1e9;
  return peak;
}

}  // namespace bench
