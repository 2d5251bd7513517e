// SPDX-License-Identifier: Apache-2.0
#pragma once
// The machine's measured fused-multiply-add peak, the denominator of "fraction of peak"
// in the GEMM benchmark: `threads` threads each run independent chains of the widest
// FMA instruction the CPU has (AVX-512, else AVX2+FMA, else scalar) for `seconds`.
#include <string>

namespace bench {

struct FmaPeak {
  double gflops = 0;  ///< 10^9 floating-point operations per second (an FMA counts 2)
  std::string isa;    ///< "avx512", "avx2", "scalar"
};

/// Measured peak of float32 (`f64 == false`) or float64 FMAs on `threads` threads.
FmaPeak measure_fma_peak(bool f64, int threads, double seconds = 0.2);

}  // namespace bench
