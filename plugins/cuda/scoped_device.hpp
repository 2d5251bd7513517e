// SPDX-License-Identifier: Apache-2.0
#pragma once
// ScopedDevice: makes a CUDA device current on this host thread for a scope and restores
// the previous one (cudaSetDevice is per thread), as c10::cuda::CUDAGuard; on_device: the
// same for one call on a cleanup path, never throwing.
#include "cuda_check.hpp"

namespace hetero::cuda {

class ScopedDevice {
 public:
  /// Throws hetero::Error when the device cannot be made current.
  explicit ScopedDevice(int device) {
    HETERO_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device)
      HETERO_CUDA_CHECK(cudaSetDevice(device));
    else
      previous_ = -1;
  }
  ~ScopedDevice() {
    if (previous_ >= 0) (void)cudaSetDevice(previous_);
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = -1;
};

/// Runs f() with `device` current and restores the previous device; never throws (for
/// destructors and other cleanup paths, where a failure is ignored).
template <class F>
auto on_device(int device, F&& f) noexcept {
  int previous = -1;
  (void)cudaGetDevice(&previous);
  if (previous != device) (void)cudaSetDevice(device);
  auto result = f();
  if (previous != device && previous >= 0) (void)cudaSetDevice(previous);
  return result;
}

}  // namespace hetero::cuda
