// SPDX-License-Identifier: Apache-2.0
#include "fence.hpp"

#include "scoped_device.hpp"

namespace hetero::cuda {

Fence Fence::record(const std::vector<StreamRef>& streams) noexcept {
  Fence fence;
  for (const auto& s : streams) {
    on_device(s.device, [&] {
      cudaEvent_t e = nullptr;
      if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess &&
          cudaEventRecord(e, s.stream) == cudaSuccess) {
        fence.events_.emplace_back(s.device, e);
        return 0;
      }
      (void)cudaGetLastError();
      if (e) (void)cudaEventDestroy(e);
      (void)cudaStreamSynchronize(s.stream);
      (void)cudaGetLastError();
      return 0;
    });
  }
  return fence;
}

Fence::~Fence() { destroy(); }

Fence& Fence::operator=(Fence&& other) noexcept {
  if (this != &other) {
    destroy();
    events_ = std::exchange(other.events_, {});
  }
  return *this;
}

bool Fence::done() noexcept {
  for (const auto& [device, e] : events_) {
    const cudaError_t status = on_device(device, [&] { return cudaEventQuery(e); });
    if (status == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    // Any other error means the stream will never run that work: the block is free.
  }
  (void)cudaGetLastError();
  return true;
}

void Fence::wait() noexcept {
  for (const auto& [device, e] : events_) (void)cudaEventSynchronize(e);
  (void)cudaGetLastError();
}

void Fence::destroy() noexcept {
  for (const auto& [device, e] : events_) (void)cudaEventDestroy(e);
  events_.clear();
}

}  // namespace hetero::cuda
