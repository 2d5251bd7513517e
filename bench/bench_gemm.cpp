// GEMM, n = 64 ... 2048, float32 and float64, at this run's thread count (bench/run runs
// HETERO_CPU_THREADS=1 and 2): hetero's matmul (result allocation, queueing, waiting for
// it) vs raw cblas_?gemm into a preallocated output (OpenBLAS at the same thread count:
// hetero sets it) vs libtorch's matmul. Counters: FLOP/s; the context carries the
// measured FMA peak, so bench/report.py gives the fraction of peak and the ratios.
#include <cblas.h>

#include <vector>

#include "common.hpp"
#include "fma_peak.hpp"
#if HETERO_BENCH_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace {

using namespace hetero;

benchmark::Counter flops(std::int64_t n) {
  return benchmark::Counter(2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n),
                            benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void register_size(std::int64_t n) {
  const bool f64 = sizeof(T) == 8;
  const std::string tag = std::string("gemm/") + (f64 ? "float64" : "float32") + "/" + std::to_string(n) + "/";
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
    for (auto _ : state) {
      if constexpr (sizeof(T) == 4)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A.data(), n, B.data(), n, 0.0f,
                    C.data(), n);
      else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A.data(), n, B.data(), n, 0.0,
                    C.data(), n);
      benchmark::DoNotOptimize(C.data());
    }
    state.counters["flops"] = flops(n);
  }));
#if HETERO_BENCH_HAVE_TORCH
  bench::timed(benchmark::RegisterBenchmark((tag + "libtorch").c_str(), [n, f64](benchmark::State& state) {
    auto op = bench::torch::gemm(n, f64);
    for (auto _ : state) op();
    state.counters["flops"] = flops(n);
  }));
#endif
}

}  // namespace

int main(int argc, char** argv) {
  (void)hetero::all_devices();  // loads the cpu plugin, which sets OpenBLAS's thread count
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
