#pragma once
// The cuBLAS entry points the cuda plugin uses, resolved from libcublas on first use
// (Boost.DLL). Loading the plugin, which every process listing devices does, then maps
// only the CUDA runtime: libcublas and libcublasLt (about 600 MB) are opened at the first
// GEMM or version query on a machine with a GPU. Start-up of a device listing on a machine
// without one drops from about 100 ms to a few (bench_startup).
//
// The library is looked for where the plugin was linked against it (HETERO_CUBLAS_PATH,
// the CUDA Toolkit's), then by its soname on the loader's usual path.
#include <cublas_v2.h>

namespace hetero::cuda {

/// Function pointers of the cuBLAS API used here (declarations from cublas_v2.h).
struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasGetProperty) get_property = nullptr;
  decltype(&cublasGetStatusName) status_name = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
  decltype(&cublasSgemmStridedBatched_64) sgemm_strided_batched = nullptr;
  decltype(&cublasDgemmStridedBatched_64) dgemm_strided_batched = nullptr;
  decltype(&cublasGemmStridedBatchedEx_64) gemm_strided_batched_ex = nullptr;
};

/// The API, loading libcublas on the first call (thread-safe; the library stays loaded
/// until the plugin is unloaded). Throws DeviceUnavailableError naming the paths tried
/// and the loader's message when it cannot be loaded or lacks a symbol.
const CublasApi& cublas_api();

/// True when cuBLAS has been loaded (status texts need it; before that there is none).
bool cublas_loaded() noexcept;

}  // namespace hetero::cuda
