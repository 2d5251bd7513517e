#pragma once
// ScopedDevice: makes a CUDA device current on this host thread for a scope and restores
// the previous one (cudaSetDevice is per thread), as c10::cuda::CUDAGuard.
#include "cuda_check.hpp"

namespace hetero::cuda {

class ScopedDevice {
 public:
  /// Throws hetero::Error when the device cannot be made current.
  explicit ScopedDevice(int device) {
    HETERO_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) HETERO_CUDA_CHECK(cudaSetDevice(device));
    else previous_ = -1;
  }
  ~ScopedDevice() {
    if (previous_ >= 0) (void)cudaSetDevice(previous_);
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace hetero::cuda
