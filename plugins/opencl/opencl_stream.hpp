// SPDX-License-Identifier: Apache-2.0
#pragma once
// OpenClStream — hetero::Stream over one in-order cl_command_queue; OpenClEvent — a
// marker (clEnqueueMarkerWithWaitList) in such a queue.
#include <hetero/sdk/stream.hpp>

#include "opencl.hpp"

namespace hetero::opencl {

class OpenClEvent final : public Event {
 public:
  /// Takes ownership of `event` (one reference); `context` is the queue's context.
  OpenClEvent(cl_event event, cl_context context) : event_(event), context_(context) {}
  ~OpenClEvent() override { clReleaseEvent(event_); }
  OpenClEvent(const OpenClEvent&) = delete;
  OpenClEvent& operator=(const OpenClEvent&) = delete;
  /// clWaitForEvents; throws hetero::Error if the recorded work failed.
  void synchronize() override;
  /// CL_EVENT_COMMAND_EXECUTION_STATUS is CL_COMPLETE (or an error, reported by synchronize).
  bool query() override;
  cl_event get() const noexcept { return event_; }
  cl_context context() const noexcept { return context_; }

 private:
  cl_event event_;
  cl_context context_;
};

class OpenClStream final : public Stream {
 public:
  /// Creates an in-order queue for `device_id` in `context`; `device` is hetero's index.
  OpenClStream(cl_context context, cl_device_id device_id, int device);
  ~OpenClStream() override;
  OpenClStream(const OpenClStream&) = delete;
  OpenClStream& operator=(const OpenClStream&) = delete;

  int device() const noexcept override { return device_; }
  /// clFinish.
  void synchronize() override;
  std::unique_ptr<Event> record() override;
  /// A barrier on the event where it belongs to this queue's context; an event of another
  /// context (another OpenCL platform) cannot enter a wait list, so the host waits for it.
  void wait(Event& event) override;

  cl_command_queue queue() const noexcept { return queue_; }
  cl_context context() const noexcept { return context_; }

 private:
  cl_context context_;
  cl_command_queue queue_ = nullptr;
  int device_;
};

}  // namespace hetero::opencl
