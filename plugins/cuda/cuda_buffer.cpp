// SPDX-License-Identifier: Apache-2.0
#include "cuda_buffer.hpp"

#include "scoped_device.hpp"

namespace hetero::cuda {

CudaBuffer::~CudaBuffer() {
  if (pool_ != nullptr) {
    pool_->free(block_, foreign_streams_);
    return;
  }
  // Adopted memory goes back to its owner once no queued work of the device uses it.
  (void)on_device(device_, [] { return cudaDeviceSynchronize(); });
  if (release_) release_();
}

}  // namespace hetero::cuda
