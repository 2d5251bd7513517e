// Small-operation overhead, ns per operation: a 2x3 float32 add with result allocation,
// ones({2, 3}), and a 100x100 float32 matmul; hetero vs libtorch vs a raw loop (malloc,
// loop or cblas_sgemm, free: the floor). hetero's iterations end when the work is done
// (synchronize()), as torch's CPU calls do.
#include <cblas.h>

#include <cstdlib>

#include "common.hpp"
#if HETERO_BENCH_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace {

using namespace hetero;

float* raw_alloc(std::size_t n) { return static_cast<float*>(std::malloc(n * sizeof(float))); }

void register_all() {
  const Device d("cpu");
  // --- 2x3 add with result allocation ---
  bench::add("small/add_2x3/hetero", [d, a = ones({2, 3}), b = ones({2, 3})] {
    Tensor c = a + b;
    synchronize(d);
  });
  bench::add("small/add_2x3/raw", [] {
    static float a[6] = {1, 1, 1, 1, 1, 1}, b[6] = {1, 1, 1, 1, 1, 1};
    float* c = raw_alloc(6);
    for (int i = 0; i < 6; ++i) c[i] = a[i] + b[i];
    benchmark::DoNotOptimize(c);
    std::free(c);
  });
  // --- ones({2, 3}) ---
  bench::add("small/ones_2x3/hetero", [d] {
    Tensor c = ones({2, 3});
    synchronize(d);
  });
  bench::add("small/ones_2x3/raw", [] {
    float* c = raw_alloc(6);
    for (int i = 0; i < 6; ++i) c[i] = 1.0f;
    benchmark::DoNotOptimize(c);
    std::free(c);
  });
  // --- 100x100 matmul ---
  bench::add("small/matmul_100/hetero", [d, a = rand({100, 100}), b = rand({100, 100})] {
    Tensor c = matmul(a, b);
    synchronize(d);
  });
  bench::add("small/matmul_100/raw", [a = rand({100, 100}).to_vector<float>()] {
    float* c = raw_alloc(100 * 100);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 100, 100, 100, 1.0f, a.data(), 100, a.data(), 100, 0.0f,
                c, 100);
    benchmark::DoNotOptimize(c);
    std::free(c);
  });
#if HETERO_BENCH_HAVE_TORCH
  bench::add("small/add_2x3/libtorch", bench::torch::add_2x3());
  bench::add("small/ones_2x3/libtorch", bench::torch::ones_2x3());
  bench::add("small/matmul_100/libtorch", bench::torch::matmul_100());
#endif
}

}  // namespace

int main(int argc, char** argv) {
#if HETERO_BENCH_HAVE_TORCH
  bench::torch::set_threads(bench::threads());
#endif
  register_all();
  return bench::run(argc, argv);
}
