// SPDX-License-Identifier: Apache-2.0
#pragma once
// CudaDevice: what the backend keeps per CUDA device: its stream, its memory pool, its
// cuBLAS handle and its cuDNN handle with the convolution algorithms chosen so far (made
// from the backend's CublasLibrary and CudnnLibrary, which outlive the device).
// Created on first use of the device (creating a CUDA context costs ~0.1-0.5 s and
// memory, so listing devices creates none).
#include <memory>
#include <mutex>

#include <cublas_v2.h>

#include "cublas_library.hpp"
#include "cuda_caching_allocator.hpp"
#include "cuda_stream.hpp"
#ifdef HETERO_CUDA_CUDNN
#include "cudnn_conv.hpp"
#include "cudnn_library.hpp"
#endif

namespace hetero::cuda {

class CudnnLibrary;

class CudaDevice {
 public:
  /// Creates the stream (and so the device's primary context). `cublas` and `cudnn` (not
  /// owned; null in a build without cuDNN) must outlive the device. Throws hetero::Error.
  CudaDevice(int index, CublasLibrary& cublas, CudnnLibrary* cudnn);
  /// Destroys the cuBLAS and cuDNN handles, the pool's blocks and the stream; never throws.
  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  int index() const noexcept { return index_; }
  CudaStream& stream() noexcept { return stream_; }
  StreamRef stream_ref() const noexcept { return {index_, stream_.get()}; }
  CudaCachingAllocator& allocator() noexcept { return allocator_; }

  /// Runs f(api, handle) with the device's cuBLAS handle bound to its stream, serialised
  /// (a cuBLAS handle must not be used by two threads at once). Loads cuBLAS on first use
  /// (DeviceUnavailableError when it cannot be loaded).
  template <class F>
  void with_cublas(F&& f) {
    std::lock_guard lock(cublas_mutex_);
    f(cublas_library_.api(), cublas());
  }

#ifdef HETERO_CUDA_CUDNN
  /// Runs f(api, handle, plans) with the device's cuDNN handle bound to its stream and its
  /// cache of convolution algorithms, serialised as with_cublas. Loads cuDNN on first use
  /// (DeviceUnavailableError when it cannot be loaded).
  template <class F>
  void with_cudnn(F&& f) {
    std::lock_guard lock(cudnn_mutex_);
    f(cudnn_library_->api(), cudnn(), cudnn_plans_);
  }
#endif

 private:
  cublasHandle_t cublas();  // created on first use; cublas_mutex_ held
#ifdef HETERO_CUDA_CUDNN
  cudnnHandle_t cudnn();  // created on first use; cudnn_mutex_ held
#endif

  int index_;
  CublasLibrary& cublas_library_;
  CudnnLibrary* cudnn_library_;
  CudaStream stream_;
  CudaCachingAllocator allocator_;
  std::mutex cublas_mutex_;
  cublasHandle_t cublas_ = nullptr;
#ifdef HETERO_CUDA_CUDNN
  std::mutex cudnn_mutex_;
  cudnnHandle_t cudnn_ = nullptr;
  CudnnConvPlans cudnn_plans_;
#endif
};

}  // namespace hetero::cuda
