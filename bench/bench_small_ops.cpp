// SPDX-License-Identifier: Apache-2.0
// Small-operation overhead, ns per operation: a 2x3 float32 add with result allocation,
// ones({2, 3}), a 2x2 float32 matmul (the fixed cost of one GEMM call: checks, result
// allocation, dispatch) and a 100x100 one; hetero vs libtorch vs a raw loop (malloc, loop
// or cblas_sgemm, free: the floor). hetero's rows run on cpu ("small/OP/hetero") and
// on every CUDA device ("small/OP/cuda:N/hetero"; bench_gpu has the raw CUDA peers). hetero's
// iterations end when the work is done (synchronize()), as torch's CPU calls do.
#include <cblas.h>

#include <cstdlib>
#include <string>

#include "common.hpp"
#if HETERO_BENCH_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace {

using namespace hetero;

float* raw_alloc(std::size_t n) { return static_cast<float*>(std::malloc(n * sizeof(float))); }

void register_device(const Device& d) {
  const std::string on = d.is_cpu() ? "" : "/" + d.str();
  const auto opt = TensorOptions().device(d);
  bench::add("small/add_2x3" + on + "/hetero", [d, a = ones({2, 3}, opt), b = ones({2, 3}, opt)] {
    Tensor c = a + b;
    synchronize(d);
  });
  bench::add("small/ones_2x3" + on + "/hetero", [d, opt] {
    Tensor c = ones({2, 3}, opt);
    synchronize(d);
  });
  bench::add("small/matmul_2x2" + on + "/hetero",
             [d, a = rand({2, 2}, opt), b = rand({2, 2}, opt)] {
               Tensor c = matmul(a, b);
               synchronize(d);
             });
  Tensor a = rand({100, 100}, opt), b = rand({100, 100}, opt);
  matmul(a, b);  // warm-up: loads the device's BLAS
  synchronize(d);
  bench::add("small/matmul_100" + on + "/hetero", [d, a, b] {
    Tensor c = matmul(a, b);
    synchronize(d);
  });
}

void register_all() {
  for (const Device& d : bench::devices()) register_device(d);
  bench::add("small/add_2x3/raw", [] {
    static float a[6] = {1, 1, 1, 1, 1, 1}, b[6] = {1, 1, 1, 1, 1, 1};
    float* c = raw_alloc(6);
    for (int i = 0; i < 6; ++i) c[i] = a[i] + b[i];
    benchmark::DoNotOptimize(c);
    std::free(c);
  });
  bench::add("small/ones_2x3/raw", [] {
    float* c = raw_alloc(6);
    for (int i = 0; i < 6; ++i) c[i] = 1.0f;
    benchmark::DoNotOptimize(c);
    std::free(c);
  });
  bench::add_peer("small/matmul_2x2/raw", [] {
    static float a[4] = {1, 2, 3, 4}, b[4] = {4, 3, 2, 1};
    float* c = raw_alloc(4);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    benchmark::DoNotOptimize(c);
    std::free(c);
  });
  bench::add_peer("small/matmul_100/raw", [a = rand({100, 100}).to_vector<float>()] {
    float* c = raw_alloc(100 * 100);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 100, 100, 100, 1.0f, a.data(), 100,
                a.data(), 100, 0.0f, c, 100);
    benchmark::DoNotOptimize(c);
    std::free(c);
  });
#if HETERO_BENCH_HAVE_TORCH
  bench::add_peer("small/add_2x3/libtorch", bench::torch::add_2x3());
  bench::add_peer("small/ones_2x3/libtorch", bench::torch::ones_2x3());
  bench::add_peer("small/matmul_2x2/libtorch", bench::torch::matmul_2x2());
  bench::add_peer("small/matmul_100/libtorch", bench::torch::matmul_100());
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
