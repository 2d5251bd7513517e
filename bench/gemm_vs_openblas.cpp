// GEMM through hetero (matmul, including the result allocation) vs raw cblas_sgemm /
// cblas_dgemm on the same data, in one process, interleaved, median of N repetitions.
// Prints a table with GFLOP/s and the ratios of hetero's throughput to raw (output
// reused) and to raw writing into a fresh allocation each call (1.00 = parity).
// Usage: bench_gemm [n ...]   (default 64 128 256 512 1000 2048)
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <hetero/hetero.hpp>

namespace {

double seconds(auto&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class T>
void run(std::int64_t n, int reps) {
  using namespace hetero;
  const DType dt = dtype_of<T>;
  Tensor a = rand({n, n}, dt), b = rand({n, n}, dt);
  std::vector<T> A = a.to_vector<T>(), B = b.to_vector<T>(), C(static_cast<std::size_t>(n * n));
  auto raw = [&] {
    if constexpr (sizeof(T) == 4)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A.data(), n, B.data(), n, 0.0f, C.data(), n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A.data(), n, B.data(), n, 0.0, C.data(), n);
  };
  // The same call writing into a freshly allocated output each time: what any API that
  // returns a new result pays (page faults on first touch), without hetero's dispatch.
  auto raw_fresh = [&] {
    std::vector<T> out(static_cast<std::size_t>(n * n));
    if constexpr (sizeof(T) == 4)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A.data(), n, B.data(), n, 0.0f, out.data(), n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A.data(), n, B.data(), n, 0.0, out.data(), n);
  };
  Tensor c;
  auto ours = [&] {
    c = matmul(a, b);
    synchronize(c.device());
  };
  raw();
  ours();  // warm-up (thread pools, page faults)
  std::vector<double> t_raw, t_fresh, t_ours;
  for (int r = 0; r < reps; ++r) {
    t_raw.push_back(seconds(raw));
    t_fresh.push_back(seconds(raw_fresh));
    t_ours.push_back(seconds(ours));
  }
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  const double g_raw = flops / median(t_raw) / 1e9, g_ours = flops / median(t_ours) / 1e9;
  const double g_fresh = flops / median(t_fresh) / 1e9;
  std::printf("%-8s %6lld %12.2f %12.2f %14.2f %10.3f %12.3f\n", sizeof(T) == 4 ? "float32" : "float64",
              static_cast<long long>(n), g_ours, g_raw, g_fresh, g_ours / g_raw, g_ours / g_fresh);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::int64_t> sizes{64, 128, 256, 512, 1000, 2048};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  }
  std::printf("GEMM, hetero matmul vs raw OpenBLAS (%s), threads=%d\n", openblas_get_config(),
              openblas_get_num_threads());
  std::printf("%-8s %6s %12s %12s %14s %10s %12s\n", "dtype", "n", "hetero GF/s", "raw GF/s", "raw+alloc GF/s",
              "vs raw", "vs raw+alloc");
  try {
    for (auto n : sizes) {
      const int reps = n <= 256 ? 50 : n <= 1000 ? 15 : 5;
      run<float>(n, reps);
      run<double>(n, reps);
    }
  } catch (const hetero::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
