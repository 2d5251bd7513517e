#include "versions.hpp"

#include "cublas_library.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>


namespace hetero::cuda {
namespace {

// cuBLAS's version, once it is loaded (the first GEMM loads it; listing devices does
// not), else the version of the headers the plugin was built with.
std::string cublas_version() {
  if (!cublas_loaded())
    return "cuBLAS " + std::to_string(CUBLAS_VER_MAJOR) + "." + std::to_string(CUBLAS_VER_MINOR) + "." +
           std::to_string(CUBLAS_VER_PATCH) + " (built with; loaded on first use)";
  const CublasApi& api = cublas_api();
  int major = 0, minor = 0, patch = 0;
  if (api.get_property(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      api.get_property(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      api.get_property(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
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
