#pragma once
// Backend::gemm on cuBLAS.
#include <hetero/sdk/kernel_args.hpp>

#include "cuda_device.hpp"

namespace hetero::cuda {

/// Queues args (row-major, batched, see GemmArgs) on `device`'s stream with
/// cublas{S,D}gemmStridedBatched_64. The device must be current.
void cublas_gemm(CudaDevice& device, const GemmArgs& args);

}  // namespace hetero::cuda
