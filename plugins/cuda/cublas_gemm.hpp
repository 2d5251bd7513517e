// SPDX-License-Identifier: Apache-2.0
#pragma once
// Backend::gemm on cuBLAS.
#include <hetero/sdk/kernel_args.hpp>

#include "cuda_device.hpp"

namespace hetero::cuda {

/// Queues args (row-major, batched, see GemmArgs) on `device`'s stream: cublas{S,D}gemm or
/// cublas{S,D}gemmStridedBatched for float32/float64, cublasGemmEx or
/// cublasGemmStridedBatchedEx (float32 accumulation) for float16/bfloat16; their _64
/// variants only where a size or stride does not fit an int. The device must be current.
void cublas_gemm(CudaDevice& device, const GemmArgs& args);

}  // namespace hetero::cuda
