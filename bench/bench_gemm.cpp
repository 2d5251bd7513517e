// SPDX-License-Identifier: Apache-2.0
// GEMM, n = 64 ... 2048, float32 and float64, at this run's thread count (bench/run runs
// HETERO_CPU_THREADS=1 and 2): hetero's matmul (result allocation, queueing, waiting for
// it) vs raw cblas_?gemm into a preallocated output (OpenBLAS at the same thread count,
// bench::PeerBlasThreads) vs libtorch's matmul. Counters: FLOP/s; the context carries the
// measured FMA peak, so bench/report.py gives the fraction of peak and the ratios.
#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "common.hpp"
#include "fma_peak.hpp"
#if HETERO_BENCH_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace {

using namespace hetero;

benchmark::Counter flops(std::int64_t n) {
  return benchmark::Counter(
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n),
      benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void register_size(std::int64_t n) {
  const bool f64 = sizeof(T) == 8;
  const std::string tag =
      std::string("gemm/") + (f64 ? "float64" : "float32") + "/" + std::to_string(n) + "/";
  bench::timed(benchmark::RegisterBenchmark((tag + "hetero").c_str(), [n](benchmark::State& state) {
    const Device d("cpu");
    Tensor a = rand({n, n}, dtype_of<T>), b = rand({n, n}, dtype_of<T>);
    synchronize(d);  // the inputs' generation is queued too: keep it out of the timing
    for (auto _ : state) {
      Tensor c = matmul(a, b);
      synchronize(d);
    }
    state.counters["flops"] = flops(n);
  }));
  bench::timed(benchmark::RegisterBenchmark((tag + "cblas").c_str(), [n](benchmark::State& state) {
    std::vector<T> A = rand({n, n}, dtype_of<T>).template to_vector<T>(), B = A, C(A.size());
    const bench::PeerBlasThreads blas;
    for (auto _ : state) {
      if constexpr (sizeof(T) == 4)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A.data(), n, B.data(),
                    n, 0.0f, C.data(), n);
      else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A.data(), n, B.data(),
                    n, 0.0, C.data(), n);
      benchmark::DoNotOptimize(C.data());
    }
    state.counters["flops"] = flops(n);
  }));
#if HETERO_BENCH_HAVE_TORCH
  bench::timed(
      benchmark::RegisterBenchmark((tag + "libtorch").c_str(), [n, f64](benchmark::State& state) {
        auto op = bench::torch::gemm(n, f64);
        const bench::PeerBlasThreads blas;
        for (auto _ : state) op();
        state.counters["flops"] = flops(n);
      }));
#endif
}

// hetero's matmul and raw cblas_?gemm of an odd size against a long-double reference:
// whatever kernel OpenBLAS chose (bench/run may unset OPENBLAS_CORETYPE), its products
// must be right before they are timed. Returns false and says why when they are not.
template <class T>
bool gemm_is_correct() {
  const std::int64_t m = 67, k = 129, n = 93;
  manual_seed(3);
  const Tensor a = rand({m, k}, dtype_of<T>) - 0.5, b = rand({k, n}, dtype_of<T>) - 0.5;
  const auto A = a.to_vector<T>(), B = b.to_vector<T>();
  const auto ours = matmul(a, b).to_vector<T>();
  std::vector<T> raw(static_cast<std::size_t>(m * n));
  if constexpr (sizeof(T) == 4)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A.data(), k, B.data(), n,
                0.0f, raw.data(), n);
  else
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, A.data(), k, B.data(), n,
                0.0, raw.data(), n);
  const double tol = (sizeof(T) == 4 ? 1e-5 : 1e-13) * static_cast<double>(k);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      long double ref = 0;
      for (std::int64_t p = 0; p < k; ++p)
        ref += static_cast<long double>(A[i * k + p]) * static_cast<long double>(B[p * n + j]);
      const auto idx = static_cast<std::size_t>(i * n + j);
      for (double got : {static_cast<double>(ours[idx]), static_cast<double>(raw[idx])})
        if (std::fabs(got - static_cast<double>(ref)) > tol) {
          std::fprintf(stderr,
                       "bench_gemm: %s GEMM with OpenBLAS core %s is wrong at (%lld, %lld): %g, "
                       "expected %g\n",
                       sizeof(T) == 4 ? "float32" : "float64", openblas_get_corename(),
                       static_cast<long long>(i), static_cast<long long>(j), got,
                       static_cast<double>(ref));
          return false;
        }
    }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  (void)hetero::all_devices();  // loads the cpu plugin
  if (!gemm_is_correct<float>() || !gemm_is_correct<double>()) return 1;
  benchmark::AddCustomContext("openblas_core", openblas_get_corename());
  const int t = bench::threads();
#if HETERO_BENCH_HAVE_TORCH
  bench::torch::set_threads(t);
  benchmark::AddCustomContext("libtorch", bench::torch::version());
#endif
  const auto p32 = bench::measure_fma_peak(false, t), p64 = bench::measure_fma_peak(true, t);
  benchmark::AddCustomContext("fma_isa", p32.isa);
  benchmark::AddCustomContext("fma_peak_float32_gflops", std::to_string(p32.gflops));
  benchmark::AddCustomContext("fma_peak_float64_gflops", std::to_string(p64.gflops));
  for (std::int64_t n : {64, 128, 256, 512, 1024, 2048}) {
    register_size<float>(n);
    register_size<double>(n);
  }
  return bench::run(argc, argv);
}
