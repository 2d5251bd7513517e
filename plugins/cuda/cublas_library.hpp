// SPDX-License-Identifier: Apache-2.0
#pragma once
// CublasLibrary: the cuBLAS entry points the cuda plugin uses, resolved from libcublas on
// first use (Boost.DLL). Loading the plugin, which every process listing devices does,
// then maps only the CUDA runtime: libcublas and libcublasLt (about 600 MB) are opened at
// the first GEMM on a machine with a GPU. Start-up of a device listing on a machine
// without one drops from about 100 ms to a few (bench_startup).
//
// The library is looked for where the plugin was linked against it (HETERO_CUBLAS_PATH,
// the CUDA Toolkit's), then by its soname on the loader's usual path.
//
// Lifetime (docs/design/plugin-lifetime.md): the backend owns the one CublasLibrary and
// declares it before its devices, so every cuBLAS handle is destroyed while libcublas is
// still mapped. Nothing of it lives in a namespace-scope static.
#include <atomic>
#include <memory>
#include <mutex>

#include <cublas_v2.h>

namespace boost::dll {
class shared_library;
}

namespace hetero::cuda {

/// Function pointers of the cuBLAS API used here (declarations from cublas_v2.h).
struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  // The 32-bit entry points (every size and stride fits an int: the usual case; the _64
  // ones cost microseconds more per call in cuBLAS 13) and the _64 ones for the rest.
  decltype(&cublasSgemm_v2) sgemm32 = nullptr;
  decltype(&cublasDgemm_v2) dgemm32 = nullptr;
  decltype(&cublasSgemmStridedBatched) sgemm_strided_batched32 = nullptr;
  decltype(&cublasDgemmStridedBatched) dgemm_strided_batched32 = nullptr;
  // cublasGemmEx / cublasGemmStridedBatchedEx with a cublasComputeType_t (cublas_api.h also
  // declares C++ overloads taking a cudaDataType compute type; the cast picks the C one).
  using GemmEx32 = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                      int, int, const void*, const void*, cudaDataType, int,
                                      const void*, cudaDataType, int, const void*, void*,
                                      cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
  using GemmStridedBatchedEx32 = cublasStatus_t (*)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*,
      cudaDataType, int, long long, const void*, cudaDataType, int, long long, const void*, void*,
      cudaDataType, int, long long, int, cublasComputeType_t, cublasGemmAlgo_t);
  decltype(static_cast<GemmEx32>(&cublasGemmEx)) gemm_ex32 = nullptr;
  decltype(static_cast<GemmStridedBatchedEx32>(
      &cublasGemmStridedBatchedEx)) gemm_strided_batched_ex32 = nullptr;
  decltype(&cublasSgemm_v2_64) sgemm = nullptr;
  decltype(&cublasDgemm_v2_64) dgemm = nullptr;
  decltype(&cublasGemmEx_64) gemm_ex = nullptr;
  decltype(&cublasSgemmStridedBatched_64) sgemm_strided_batched = nullptr;
  decltype(&cublasDgemmStridedBatched_64) dgemm_strided_batched = nullptr;
  decltype(&cublasGemmStridedBatchedEx_64) gemm_strided_batched_ex = nullptr;
};

class CublasLibrary {
 public:
  CublasLibrary();
  /// Unloads libcublas if it was loaded: every handle made from it must be gone.
  ~CublasLibrary();
  CublasLibrary(const CublasLibrary&) = delete;
  CublasLibrary& operator=(const CublasLibrary&) = delete;

  /// The API, loading libcublas on the first call (thread-safe). Throws
  /// DeviceUnavailableError naming the paths tried and the loader's message when it cannot
  /// be loaded or lacks a symbol (and again at the next call: nothing is cached then).
  const CublasApi& api();
  /// True once api() has loaded the library.
  bool loaded() const noexcept { return loaded_.load(std::memory_order_acquire); }

 private:
  std::mutex mutex_;
  std::unique_ptr<boost::dll::shared_library> library_;
  CublasApi api_;
  std::atomic<bool> loaded_{false};
};

}  // namespace hetero::cuda
