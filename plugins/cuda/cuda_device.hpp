#pragma once
// CudaDevice: what the backend keeps per CUDA device: its stream, its memory pool and its
// cuBLAS handle. Created on first use of the device (creating a CUDA context costs
// ~0.1-0.5 s and memory, so listing devices creates none).
#include <memory>
#include <mutex>

#include <cublas_v2.h>

#include "caching_allocator.hpp"
#include "cuda_stream.hpp"

namespace hetero::cuda {

class CudaDevice {
 public:
  /// Creates the stream (and so the device's primary context). Throws hetero::Error.
  explicit CudaDevice(int index);
  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  int index() const noexcept { return index_; }
  CudaStream& stream() noexcept { return stream_; }
  StreamRef stream_ref() const noexcept { return {index_, stream_.get()}; }
  CachingAllocator& allocator() noexcept { return allocator_; }

  /// Runs f(handle) with the device's cuBLAS handle bound to its stream, serialised (a
  /// cuBLAS handle must not be used by two threads at once). The device is current.
  template <class F>
  void with_cublas(F&& f) {
    std::lock_guard lock(cublas_mutex_);
    f(cublas());
  }

 private:
  cublasHandle_t cublas();  // created on first use; cublas_mutex_ held

  int index_;
  CudaStream stream_;
  CachingAllocator allocator_;
  std::mutex cublas_mutex_;
  cublasHandle_t cublas_ = nullptr;
};

}  // namespace hetero::cuda
