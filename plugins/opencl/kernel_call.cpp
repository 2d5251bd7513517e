// SPDX-License-Identifier: Apache-2.0
#include "kernel_call.hpp"

#include <algorithm>

#include "opencl_buffer.hpp"
#include "opencl_check.hpp"

namespace hetero::opencl {

KernelCall::KernelCall(cl_program program, const char* name) : name_(name) {
  cl_int status = CL_SUCCESS;
  kernel_ = clCreateKernel(program, name, &status);
  HETERO_CL_CHECK(status);
}

KernelCall::~KernelCall() {
  if (kernel_) clReleaseKernel(kernel_);
}

void KernelCall::set(std::size_t size, const void* value) {
  const cl_int status = clSetKernelArg(kernel_, index_, size, value);
  if (status != CL_SUCCESS)
    fail(status,
         ("clSetKernelArg(" + std::string(name_) + ", " + std::to_string(index_) + ")").c_str(),
         __FILE__, __LINE__);
  ++index_;
}

KernelCall& KernelCall::mem(const Buffer* buffer) {
  const cl_mem m = buffer ? mem_of(*buffer) : nullptr;
  set(sizeof(cl_mem), &m);
  return *this;
}

KernelCall& KernelCall::view(const StridedView& v) {
  cl_long8 shape{};
  cl_long8 strides{};
  for (int d = 0; d < v.ndim; ++d) {
    shape.s[d] = v.shape[d];
    strides.s[d] = v.strides[d];
  }
  const cl_long offset = v.offset;
  const cl_int ndim = v.ndim;
  return arg(offset).arg(ndim).arg(shape).arg(strides);
}

void KernelCall::launch(cl_command_queue queue, std::int64_t items) {
  if (items <= 0) return;
  // One work item per item up to 2^31 (within every device's global size); beyond that,
  // each loops over the rest (FOR_EACH). Not capped lower: on PoCL's CPU device a work item
  // that loops is not vectorised across work items, and 16M-element x + y, fill and exp
  // took 2.4x, 3x and 1.2x longer with a 2^20 cap.
  constexpr std::int64_t kMaxItems = std::int64_t{1} << 31;
  const std::size_t global = static_cast<std::size_t>(std::min(items, kMaxItems));
  HETERO_CL_CHECK(
      clEnqueueNDRangeKernel(queue, kernel_, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
}

}  // namespace hetero::opencl
