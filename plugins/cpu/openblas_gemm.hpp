// SPDX-License-Identifier: Apache-2.0
#pragma once
// The OpenBLAS wrapper: GEMM and thread control. The only file that includes cblas.h.
#include <string>

#include <hetero/sdk/kernel_args.hpp>

namespace hetero::cpu {

/// Runs args (float32, float64; float16/bfloat16 widened to float32) with cblas_?gemm, split
/// over the calling thread's kernel pool (Note [GEMM on the kernel pool]).
void gemm(const GemmArgs& args);
/// Sets OpenBLAS's (process-wide) thread count; the plugin sets 1.
void set_blas_threads(int n);
/// "OpenBLAS 0.3.21 (...config...)".
std::string blas_version();

}  // namespace hetero::cpu
