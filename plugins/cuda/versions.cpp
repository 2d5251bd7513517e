// SPDX-License-Identifier: Apache-2.0
#include "versions.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace hetero::cuda {
namespace {

// The cuBLAS version of the headers the plugin was built with: the plugin's info record is
// read before any backend exists, and cuBLAS is loaded only at the first GEMM.
std::string cublas_version() {
  return "cuBLAS " + std::to_string(CUBLAS_VER_MAJOR) + "." + std::to_string(CUBLAS_VER_MINOR) +
         "." + std::to_string(CUBLAS_VER_PATCH) + " (built with; loaded on first use)";
}

}  // namespace

std::string version_string(int encoded) {
  return std::to_string(encoded / 1000) + "." + std::to_string((encoded % 1000) / 10);
}

std::string vendor_versions() {
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) (void)cudaGetLastError();
  return "CUDA runtime " + version_string(runtime) + ", " + cublas_version();
}

}  // namespace hetero::cuda
