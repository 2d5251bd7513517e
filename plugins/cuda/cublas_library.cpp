// SPDX-License-Identifier: Apache-2.0
#include "cublas_library.hpp"

#include <boost/dll/shared_library.hpp>

#include <string>

#include <hetero/error.hpp>

#include "library_loader.hpp"

namespace hetero::cuda {
namespace {

boost::dll::shared_library open_cublas() {
  std::string tried;
  boost::dll::shared_library lib =
      open_first({HETERO_CUBLAS_PATH, "libcublas.so.13", "libcublas.so"}, tried);
  if (!lib.is_loaded()) throw DeviceUnavailableError("cuda: cannot load cuBLAS (" + tried + ")");
  return lib;
}

template <class F>
void resolve(const boost::dll::shared_library& lib, F& fn, const char* symbol) {
  if (!lib.has(symbol))
    throw DeviceUnavailableError(std::string("cuda: cuBLAS has no symbol ") + symbol);
  fn = reinterpret_cast<F>(lib.get<void()>(symbol));
}

}  // namespace

CublasLibrary::CublasLibrary() = default;
CublasLibrary::~CublasLibrary() = default;

const CublasApi& CublasLibrary::api() {
  if (loaded_.load(std::memory_order_acquire)) return api_;
  std::lock_guard lock(mutex_);
  if (loaded_.load(std::memory_order_relaxed)) return api_;
  auto lib = std::make_unique<boost::dll::shared_library>(open_cublas());
  CublasApi api;
  resolve(*lib, api.create, "cublasCreate_v2");
  resolve(*lib, api.destroy, "cublasDestroy_v2");
  resolve(*lib, api.set_stream, "cublasSetStream_v2");
  resolve(*lib, api.sgemm32, "cublasSgemm_v2");
  resolve(*lib, api.dgemm32, "cublasDgemm_v2");
  resolve(*lib, api.sgemm_strided_batched32, "cublasSgemmStridedBatched");
  resolve(*lib, api.dgemm_strided_batched32, "cublasDgemmStridedBatched");
  resolve(*lib, api.gemm_ex32, "cublasGemmEx");
  resolve(*lib, api.gemm_strided_batched_ex32, "cublasGemmStridedBatchedEx");
  resolve(*lib, api.sgemm, "cublasSgemm_v2_64");
  resolve(*lib, api.dgemm, "cublasDgemm_v2_64");
  resolve(*lib, api.gemm_ex, "cublasGemmEx_64");
  resolve(*lib, api.sgemm_strided_batched, "cublasSgemmStridedBatched_64");
  resolve(*lib, api.dgemm_strided_batched, "cublasDgemmStridedBatched_64");
  resolve(*lib, api.gemm_strided_batched_ex, "cublasGemmStridedBatchedEx_64");
  library_ = std::move(lib);
  api_ = api;
  loaded_.store(true, std::memory_order_release);
  return api_;
}

}  // namespace hetero::cuda
