// SPDX-License-Identifier: Apache-2.0
#include "cuda_stream.hpp"

#include <hetero/error.hpp>
#include <hetero/internal_assert.hpp>

#include "device_health.hpp"
#include "scoped_device.hpp"

namespace hetero::cuda {

CudaEvent::CudaEvent(int device, cudaStream_t stream, bool timing)
    : device_(device), timing_(timing) {
  ScopedDevice guard(device);
  HETERO_CUDA_CHECK(
      cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming));
  const cudaError_t e = cudaEventRecord(event_, stream);
  if (e != cudaSuccess) {
    (void)cudaEventDestroy(event_);
    HETERO_CUDA_CHECK(e);
  }
}

CudaEvent::~CudaEvent() { (void)cudaEventDestroy(event_); }

void CudaEvent::synchronize() {
  device_health().check(device_);
  ScopedDevice guard(device_);
  HETERO_CUDA_CHECK(cudaEventSynchronize(event_));
}

bool CudaEvent::query() {
  device_health().check(device_);
  const cudaError_t e = cudaEventQuery(event_);
  if (e == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  HETERO_CUDA_CHECK(e);
  return true;
}

CudaStream::CudaStream(int device) : device_(device) {
  ScopedDevice guard(device);
  HETERO_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

CudaStream::~CudaStream() {
  if (stream_) on_device(device_, [&] { return cudaStreamDestroy(stream_); });
}

void CudaStream::synchronize() {
  device_health().check(device_);
  ScopedDevice guard(device_);
  HETERO_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

std::unique_ptr<Event> CudaStream::record() {
  device_health().check(device_);
  return std::make_unique<CudaEvent>(device_, stream_);
}

void CudaStream::wait(Event& event) {
  auto* cuda_event = dynamic_cast<CudaEvent*>(&event);
  HETERO_INTERNAL_ASSERT(cuda_event != nullptr,
                         "cuda stream: wait() was given an event of another backend");
  device_health().check(device_);
  ScopedDevice guard(device_);
  HETERO_CUDA_CHECK(cudaStreamWaitEvent(stream_, cuda_event->get(), 0));
}

}  // namespace hetero::cuda
