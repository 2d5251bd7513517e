// SPDX-License-Identifier: Apache-2.0
#pragma once
// The OpenBLAS wrapper: GEMM, single-threaded in OpenBLAS for the span of each call (Note
// [OpenBLAS's thread count]). The only file that includes cblas.h.
#include <cstdint>
#include <string>

#include <hetero/sdk/kernel_args.hpp>

namespace hetero::cpu {

/// Runs args (float32, float64; float16/bfloat16 widened to float32) with cblas_?gemm, split
/// over the calling thread's kernel pool (Note [GEMM on the kernel pool]). Leaves OpenBLAS's
/// process-wide thread count as it found it. Thread-safe.
void gemm(const GemmArgs& args);
/// C = alpha op(A) op(B) + beta C, row-major host matrices (op: transposed where `ta`/`tb`;
/// m x n result, inner dimension k; ld*: row strides in elements), as one cblas call on the
/// calling thread (beta == 0: C is not read). For kernels that split their own work over
/// the kernel threads (kernels_conv.cpp).
void gemm_on_this_thread(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k,
                         float alpha, const float* a, std::int64_t lda, const float* b,
                         std::int64_t ldb, float beta, float* c, std::int64_t ldc);
void gemm_on_this_thread(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k,
                         double alpha, const double* a, std::int64_t lda, const double* b,
                         std::int64_t ldb, double beta, double* c, std::int64_t ldc);
/// "OpenBLAS 0.3.21 (...config...)".
std::string blas_version();

}  // namespace hetero::cpu
