// SPDX-License-Identifier: Apache-2.0
#include "opencl_stream.hpp"

#include <hetero/error.hpp>
#include <hetero/internal_assert.hpp>

#include "opencl_check.hpp"

namespace hetero::opencl {

void OpenClEvent::synchronize() {
  HETERO_CL_CHECK(clWaitForEvents(1, &event_));
  cl_int status = CL_COMPLETE;
  HETERO_CL_CHECK(
      clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr));
  if (status < 0) fail(status, "queued work before the event", __FILE__, __LINE__);
}

bool OpenClEvent::query() {
  cl_int status = CL_COMPLETE;
  if (clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr) !=
      CL_SUCCESS)
    return true;  // synchronize() reports the failure
  return status <= CL_COMPLETE;
}

OpenClStream::OpenClStream(cl_context context, cl_device_id device_id, int device)
    : context_(context), device_(device) {
  cl_int status = CL_SUCCESS;
  queue_ = clCreateCommandQueue(context, device_id, 0, &status);
  HETERO_CL_CHECK(status);
}

OpenClStream::~OpenClStream() {
  if (!queue_) return;
  clFinish(queue_);  // destructors do not throw: a failure here has nobody to tell
  clReleaseCommandQueue(queue_);
}

void OpenClStream::synchronize() { HETERO_CL_CHECK(clFinish(queue_)); }

std::unique_ptr<Event> OpenClStream::record() {
  cl_event event = nullptr;
  HETERO_CL_CHECK(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &event));
  return std::make_unique<OpenClEvent>(event, context_);
}

void OpenClStream::wait(Event& event) {
  auto* e = dynamic_cast<OpenClEvent*>(&event);
  HETERO_INTERNAL_ASSERT(e != nullptr,
                         "opencl: Stream::wait was given an event of another backend");
  if (e->context() == context_) {
    cl_event list[] = {e->get()};
    HETERO_CL_CHECK(clEnqueueBarrierWithWaitList(queue_, 1, list, nullptr));
  } else {
    e->synchronize();
  }
}

}  // namespace hetero::opencl
