// SPDX-License-Identifier: Apache-2.0
#pragma once
// CudaStream and CudaEvent: hetero::Stream / hetero::Event on cudaStream_t / cudaEvent_t.
// Each device has one non-blocking stream (it does not synchronise with the legacy
// default stream 0), created with its device.
#include <memory>

#include <hetero/sdk/stream.hpp>

#include "cuda_check.hpp"

namespace hetero::cuda {

/// A recorded point of a CUDA stream (timing disabled: cheapest kind of event).
class CudaEvent final : public Event {
 public:
  /// Records a new event on `stream` of `device`; `timing`: one that keeps its time
  /// (Backend::record_timestamp; cudaEventElapsedTime reads it), else cudaEventDisableTiming.
  CudaEvent(int device, cudaStream_t stream, bool timing = false);
  ~CudaEvent() override;
  void synchronize() override;
  bool query() override;
  cudaEvent_t get() const noexcept { return event_; }
  int device() const noexcept { return device_; }
  bool timing() const noexcept { return timing_; }

 private:
  int device_;
  bool timing_;
  cudaEvent_t event_ = nullptr;
};

class CudaStream final : public Stream {
 public:
  /// Creates a non-blocking stream on `device`. Throws hetero::Error.
  explicit CudaStream(int device);
  ~CudaStream() override;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  int device() const noexcept override { return device_; }
  void synchronize() override;
  std::unique_ptr<Event> record() override;
  /// `event` must be a CudaEvent (of any device of this backend); throws hetero::Error else.
  void wait(Event& event) override;
  cudaStream_t get() const noexcept { return stream_; }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace hetero::cuda
