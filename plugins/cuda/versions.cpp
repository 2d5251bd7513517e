#include "versions.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace hetero::cuda {
namespace {

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
    return "cuBLAS";
  return "cuBLAS " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
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
