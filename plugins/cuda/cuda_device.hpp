// SPDX-License-Identifier: Apache-2.0
#pragma once
// CudaDevice: what the backend keeps per CUDA device: its stream, its memory pool and its
// cuBLAS handle (made from the backend's CublasLibrary, which outlives the device).
// Created on first use of the device (creating a CUDA context costs ~0.1-0.5 s and
// memory, so listing devices creates none).
#include <memory>
#include <mutex>

#include <cublas_v2.h>

#include "cublas_library.hpp"
#include "cuda_caching_allocator.hpp"
#include "cuda_stream.hpp"

namespace hetero::cuda {

class CudaDevice {
 public:
  /// Creates the stream (and so the device's primary context). `cublas` (not owned) must
  /// outlive the device. Throws hetero::Error.
  CudaDevice(int index, CublasLibrary& cublas);
  /// Destroys the cuBLAS handle, the pool's blocks and the stream; never throws.
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

 private:
  cublasHandle_t cublas();  // created on first use; cublas_mutex_ held

  int index_;
  CublasLibrary& cublas_library_;
  CudaStream stream_;
  CudaCachingAllocator allocator_;
  std::mutex cublas_mutex_;
  cublasHandle_t cublas_ = nullptr;
};

}  // namespace hetero::cuda
