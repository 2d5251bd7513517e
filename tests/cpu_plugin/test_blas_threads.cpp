// SPDX-License-Identifier: Apache-2.0
// OpenBLAS's process-wide thread count is the application's: hetero's cpu plugin runs
// OpenBLAS single-threaded only for the span of its own calls (Note [OpenBLAS's thread
// count], plugins/cpu/openblas_gemm.cpp; issue #49 item 2). The plugin is loaded by the
// core as an application loads it, and this program calls the same libopenblas.so.0.
#include <cblas.h>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include <hetero/hetero.hpp>

namespace {

using namespace hetero;

// Every path of the plugin that calls cblas: matmul split over the kernel threads and on
// one thread, batched, float16 (widened), float64, and convolution (its im2col GEMMs on the
// kernel threads, where HETERO_CPU_ONEDNN=0 or oneDNN is not built, else oneDNN).
void use_every_gemm_path() {
  const Device cpu("cpu");
  manual_seed(3);
  const Tensor a = randn({256, 300}, TensorOptions(cpu)), b = randn({300, 200}, TensorOptions(cpu));
  (void)matmul(a, b).sum().item<double>();
  (void)matmul(a.narrow(0, 0, 2), b.narrow(1, 0, 2)).sum().item<double>();
  (void)bmm(randn({4, 64, 64}, TensorOptions(cpu)), randn({4, 64, 64}, TensorOptions(cpu)))
      .sum()
      .item<double>();
  (void)matmul(a.to(DType::float16), b.to(DType::float16)).sum().item<double>();
  (void)matmul(a.to(DType::float64), b.to(DType::float64)).sum().item<double>();
  Tensor x = randn({8, 3, 16, 16}, TensorOptions(cpu)), w = randn({4, 3, 3, 3}, TensorOptions(cpu));
  x.requires_grad_();
  w.requires_grad_();
  conv2d(x, w, {}, 1, 1).sum().backward();
  (void)x.grad().sum().item<double>();
}

TEST(BlasThreads, TheApplicationsCountIsKeptAcrossHeterosGemms) {
  const int before = openblas_get_num_threads();
  for (const int count : {3, 1, 2}) {
    openblas_set_num_threads(count);
    use_every_gemm_path();
    EXPECT_EQ(openblas_get_num_threads(), count)
        << "a hetero GEMM left OpenBLAS's thread count changed (it was " << count << ")";
  }
  openblas_set_num_threads(before);
}

TEST(BlasThreads, TheApplicationsOwnGemmStillComputesBesideHeteros) {
  // The application's GEMM on its own thread while hetero's run: both correct, and the
  // count is the application's afterwards.
  openblas_set_num_threads(2);
  const int n = 96;
  std::vector<double> a(n * n, 1.0), b(n * n, 2.0), c(n * n, 0.0);
  std::thread app([&] {
    for (int i = 0; i < 50; ++i)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n,
                  0.0, c.data(), n);
  });
  use_every_gemm_path();
  app.join();
  for (const double v : c) ASSERT_EQ(v, 2.0 * n);
  EXPECT_EQ(openblas_get_num_threads(), 2);
}

}  // namespace
