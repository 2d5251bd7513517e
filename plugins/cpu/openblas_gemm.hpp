// SPDX-License-Identifier: Apache-2.0
#pragma once
// The OpenBLAS wrapper: GEMM and thread control. The only file that includes cblas.h.
#include <string>

#include <hetero/sdk/kernel_args.hpp>

namespace hetero::cpu {

/// Runs args (float32 or float64) with cblas_?gemm, one call per batch entry.
void gemm(const GemmArgs& args);
/// Sets OpenBLAS's thread count.
void set_blas_threads(int n);
/// "OpenBLAS 0.3.21 (...config...)".
std::string blas_version();

}  // namespace hetero::cpu
