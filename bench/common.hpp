// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the benchmark programs share: the thread count of this run, the devices to run
// on, and registration of a Google Benchmark from a closure, timed in wall-clock time
// (hetero's work is asynchronous: every hetero iteration ends with synchronize()).
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <hetero/hetero.hpp>
#include <hetero/host_cores.hpp>

#if HETERO_BENCH_HAVE_TORCH
#include "torch_peer.hpp"
// A row's libtorch side, bench::torch::call, or none where the benchmarks are built without
// libtorch (an empty std::function: the caller registers no peer).
#define HETERO_TORCH_PEER(call) bench::torch::call
#else
#define HETERO_TORCH_PEER(call) std::function<void()>()
#endif

namespace bench {

/// Threads of this run: HETERO_CPU_THREADS, else the cores this process may run on
/// (hetero's own default, hetero::usable_cores()).
inline int threads() {
  if (const char* v = std::getenv("HETERO_CPU_THREADS")) return std::max(1, std::atoi(v));
  return hetero::usable_cores();
}

/// cpu, then every CUDA device (the same programs run on a GPU where one exists).
inline std::vector<hetero::Device> devices() {
  std::vector<hetero::Device> out{hetero::Device("cpu")};
  for (int i = 0; i < hetero::num_gpus(); ++i) out.push_back(hetero::try_gpu(i));
  return out;
}

/// Times `b` in wall-clock time and adds the "min" statistic over repetitions: on a shared
/// machine interference only ever adds time, so the fastest repetition is the steadiest
/// estimate (bench/report.py uses it; the median is reported beside it).
inline benchmark::internal::Benchmark* timed(benchmark::internal::Benchmark* b) {
  return b->UseRealTime()->ComputeStatistics("min", [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
  });
}

/// Registers `name` running `op` once per iteration (see timed()).
inline benchmark::internal::Benchmark* add(const std::string& name, std::function<void()> op) {
  return timed(
      benchmark::RegisterBenchmark(name.c_str(), [op = std::move(op)](benchmark::State& state) {
        for (auto _ : state) op();
      }));
}

/// OpenBLAS at this run's thread count for a peer's loop (raw cblas, libtorch, which calls
/// the same OpenBLAS), the previous count restored after: the run's `--threads` may differ
/// from OpenBLAS's default (the cores; OPENBLAS_NUM_THREADS). hetero's cpu plugin leaves the
/// count as it finds it (Note [OpenBLAS's thread count]).
class PeerBlasThreads {
 public:
  PeerBlasThreads() : previous_(openblas_get_num_threads()) { openblas_set_num_threads(threads()); }
  ~PeerBlasThreads() { openblas_set_num_threads(previous_); }
  PeerBlasThreads(const PeerBlasThreads&) = delete;
  PeerBlasThreads& operator=(const PeerBlasThreads&) = delete;

 private:
  int previous_;
};

/// add() for a peer's row: `op` runs under PeerBlasThreads.
inline benchmark::internal::Benchmark* add_peer(const std::string& name, std::function<void()> op) {
  return timed(
      benchmark::RegisterBenchmark(name.c_str(), [op = std::move(op)](benchmark::State& state) {
        const PeerBlasThreads blas;
        for (auto _ : state) op();
      }));
}

/// Initialises Google Benchmark with the run's context and runs what was registered.
inline int run(int argc, char** argv) {
  benchmark::AddCustomContext("threads", std::to_string(threads()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace bench
