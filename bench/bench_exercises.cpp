// SPDX-License-Identifier: Apache-2.0
// The chapter's exercises 1 and 3 as benchmarks, on every device (cpu here; each CUDA
// device where present), against libtorch on the CPU:
// - exercise 1: 100 x {A = ones(500,500); B = ones(500,500); C = matmul(A, B)}, one wait
//   at the end; and a tiny task (a 2x3 add read back) where the CPU beats a GPU;
// - exercise 3: 1000 products of 100x100 matrices recording each Frobenius norm, read on
//   the host every step (item()) vs logged into a device tensor and read once. Counter
//   host_syncs: host synchronisations per iteration, from hetero::transfer_stats.
#include <string>
#include <vector>

#include "common.hpp"
#if HETERO_BENCH_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace {

using namespace hetero;

void exercise1(const Device& d) {
  const auto on = TensorOptions().device(d);
  for (int i = 0; i < 100; ++i) {
    Tensor A = ones({500, 500}, on), B = ones({500, 500}, on);
    Tensor C = matmul(A, B);
  }
  synchronize(d);
}

void exercise3(const Device& d, const Tensor& a, const Tensor& b, bool per_step) {
  if (per_step) {
    std::vector<float> norms;
    norms.reserve(1000);
    for (int i = 0; i < 1000; ++i) norms.push_back(matmul(a, b).norm().item<float>());
    benchmark::DoNotOptimize(norms.data());
  } else {
    Tensor log = zeros({1000}, TensorOptions().device(d));
    for (int i = 0; i < 1000; ++i) log.narrow(0, i, 1).copy_(matmul(a, b).norm().reshape({1}));
    std::vector<float> norms = log.to_vector<float>();  // the one host read
    benchmark::DoNotOptimize(norms.data());
  }
}

void register_device(const Device& d) {
  const std::string on = "/" + d.str();
  // Warm-up outside the timing: a device's first GEMM loads its BLAS (cuBLAS: ~200 ms) and
  // fills its memory pool; the benchmarks measure the steady state.
  exercise1(d);
  bench::add("exercise1/matmul_500" + on + "/hetero", [d] { exercise1(d); });
  bench::add("exercise1/tiny_task" + on + "/hetero",
             [d, x = ones({2, 3}, TensorOptions().device(d))] {
               benchmark::DoNotOptimize((x + x).sum().item<float>());
             });
  for (bool per_step : {true, false}) {
    const std::string name =
        std::string("exercise3/") + (per_step ? "item_per_step" : "device_log") + on + "/hetero";
    bench::timed(benchmark::RegisterBenchmark(name.c_str(), [d, per_step](benchmark::State& state) {
      const auto opt = TensorOptions().device(d);
      Tensor a = rand({100, 100}, opt), b = rand({100, 100}, opt);
      synchronize(d);
      const auto syncs0 = transfer_stats(d).host_syncs;
      for (auto _ : state) exercise3(d, a, b, per_step);
      state.counters["host_syncs"] =
          benchmark::Counter(static_cast<double>(transfer_stats(d).host_syncs - syncs0),
                             benchmark::Counter::kAvgIterations);
    }));
  }
}

}  // namespace

int main(int argc, char** argv) {
#if HETERO_BENCH_HAVE_TORCH
  bench::torch::set_threads(bench::threads());
  bench::add_peer("exercise1/matmul_500/cpu/libtorch", bench::torch::exercise1());
  bench::add_peer("exercise3/item_per_step/cpu/libtorch", bench::torch::exercise3(true));
  bench::add_peer("exercise3/device_log/cpu/libtorch", bench::torch::exercise3(false));
#endif
  for (const Device& d : bench::devices()) register_device(d);
  return bench::run(argc, argv);
}
