// SPDX-License-Identifier: Apache-2.0
#include "cuda_device.hpp"

#include "scoped_device.hpp"

namespace hetero::cuda {

CudaDevice::CudaDevice(int index, CublasLibrary& cublas)
    : index_(index),
      cublas_library_(cublas),
      stream_(index),
      allocator_(CudaCachingAllocator::Memory::device, index) {}

CudaDevice::~CudaDevice() {
  if (cublas_) on_device(index_, [&] { return cublas_library_.api().destroy(cublas_); });
}

cublasHandle_t CudaDevice::cublas() {
  if (!cublas_) {
    ScopedDevice guard(index_);
    HETERO_CUDA_CHECK(cublas_library_.api().create(&cublas_));
    HETERO_CUDA_CHECK(cublas_library_.api().set_stream(cublas_, stream_.get()));
  }
  return cublas_;
}

}  // namespace hetero::cuda
