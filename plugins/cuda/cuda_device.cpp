#include "cuda_device.hpp"

#include "scoped_device.hpp"

namespace hetero::cuda {

CudaDevice::CudaDevice(int index)
    : index_(index), stream_(index), allocator_(CachingAllocator::Memory::device, index) {}

CudaDevice::~CudaDevice() {
  if (cublas_) on_device(index_, [&] { return cublasDestroy(cublas_); });
}

cublasHandle_t CudaDevice::cublas() {
  if (!cublas_) {
    ScopedDevice guard(index_);
    HETERO_CUDA_CHECK(cublasCreate(&cublas_));
    HETERO_CUDA_CHECK(cublasSetStream(cublas_, stream_.get()));
  }
  return cublas_;
}

}  // namespace hetero::cuda
