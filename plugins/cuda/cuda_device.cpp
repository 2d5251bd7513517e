// SPDX-License-Identifier: Apache-2.0
#include "cuda_device.hpp"

#include "scoped_device.hpp"

namespace hetero::cuda {

CudaDevice::CudaDevice(int index, CublasLibrary& cublas, CudnnLibrary* cudnn)
    : index_(index),
      cublas_library_(cublas),
      cudnn_library_(cudnn),
      stream_(index),
      allocator_(CudaCachingAllocator::Memory::device, index) {}

CudaDevice::~CudaDevice() {
  if (cublas_) on_device(index_, [&] { return cublas_library_.api().destroy(cublas_); });
#ifdef HETERO_CUDA_CUDNN
  if (cudnn_) on_device(index_, [&] { return cudnn_library_->api().destroy(cudnn_); });
#endif
}

cublasHandle_t CudaDevice::cublas() {
  if (!cublas_) {
    ScopedDevice guard(index_);
    HETERO_CUDA_CHECK(cublas_library_.api().create(&cublas_));
    HETERO_CUDA_CHECK(cublas_library_.api().set_stream(cublas_, stream_.get()));
  }
  return cublas_;
}

#ifdef HETERO_CUDA_CUDNN
cudnnHandle_t CudaDevice::cudnn() {
  if (!cudnn_) {
    const CudnnApi& api = cudnn_library_->api();
    ScopedDevice guard(index_);
    cudnnHandle_t h = nullptr;
    HETERO_CUDNN_CHECK(api, api.create(&h));
    if (const cudnnStatus_t s = api.set_stream(h, stream_.get()); s != CUDNN_STATUS_SUCCESS) {
      (void)api.destroy(h);
      fail(api, s, "cudnnSetStream", __FILE__, __LINE__);
    }
    cudnn_ = h;
  }
  return cudnn_;
}
#endif

}  // namespace hetero::cuda
