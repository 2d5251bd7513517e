// Entry points of libhetero-cuda.so.
#include <string>

#include <hetero/sdk/plugin.hpp>

#include "cublas_gemm.hpp"
#include "cuda_backend.hpp"

namespace {

// "CUDA runtime 13.0, cuBLAS 13.0.0" (the runtime version is known without a driver).
std::string vendor_versions() {
  int runtime = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  (void)cudaGetLastError();
  return "CUDA runtime " + std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10) + ", " +
         hetero::cuda::cublas_version();
}

}  // namespace

HETERO_PLUGIN(hetero::cuda::CudaBackend, HETERO_PLUGIN_NAME, HETERO_PLUGIN_VERSION, vendor_versions())
