#include "cuda_device.hpp"

#include "scoped_device.hpp"

namespace hetero::cuda {

CudaDevice::CudaDevice(int index, CublasLibrary& cublas)
    : index_(index), cublas_library_(cublas), stream_(index), allocator_(CudaCachingAllocator::Memory::device, index) {}

CudaDevice::~CudaDevice() {
  if (cublas_) on_device(index_, [&] { return cublas_library_.api().destroy(cublas_); });
  if (cublas_workspace_) on_device(index_, [&] { return cudaFree(cublas_workspace_); });
}

cublasHandle_t CudaDevice::cublas() {
  if (!cublas_) {
    ScopedDevice guard(index_);
    HETERO_CUDA_CHECK(cublas_library_.api().create(&cublas_));
    HETERO_CUDA_CHECK(cublas_library_.api().set_stream(cublas_, stream_.get()));
    // A workspace of its own (outside the pool: it lives as long as the handle). Without
    // memory for it cuBLAS keeps its default; a failed cudaMalloc is not sticky.
    if (cudaMalloc(&cublas_workspace_, kCublasWorkspaceBytes) == cudaSuccess) {
      HETERO_CUDA_CHECK(cublas_library_.api().set_workspace(cublas_, cublas_workspace_, kCublasWorkspaceBytes));
    } else {
      (void)cudaGetLastError();
      cublas_workspace_ = nullptr;
    }
  }
  return cublas_;
}

}  // namespace hetero::cuda
