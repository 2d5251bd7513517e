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
  // each loops over the rest (FOR_EACH), and FOR_EACH also idles the items that round the
  // global size up to a whole work-group. Not capped lower: on PoCL's CPU device a work item
  // that loops is not vectorised across work items, and 16M-element x + y, fill and exp
  // took 2.4x, 3x and 1.2x longer with a 2^20 cap.
  //
  // The work-group size is fixed (kLocal, or less where the kernel allows less), never left
  // to the driver: PoCL compiles a kernel again for each work-group size it is launched
  // with, and picks that size from the global size, so that each new tensor size cost a
  // compile (43 sizes of `a + a` then `sum`: 15.1 s before, 1.7 s after; PoCL, 2 cores).
  // 256 measured as fast as PoCL's own choice or faster on 16M float32 (x + y 54 -> 46 ms,
  // exp 103 -> 81 ms, ones 11 -> 8.5 ms) and ahead of 64, 1024 and 4096 overall
  // (docs/design/opencl-plugin.md).
  constexpr std::size_t kLocal = 256;
  cl_device_id device = nullptr;
  HETERO_CL_CHECK(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(device), &device, nullptr));
  std::size_t kernel_max = 0;
  HETERO_CL_CHECK(clGetKernelWorkGroupInfo(kernel_, device, CL_KERNEL_WORK_GROUP_SIZE,
                                           sizeof(kernel_max), &kernel_max, nullptr));
  std::size_t local = 1;  // a power of two, so that it divides the 2^31 cap
  while (local * 2 <= std::min(kLocal, kernel_max)) local *= 2;
  constexpr std::int64_t kMaxItems = std::int64_t{1} << 31;
  const std::size_t groups =
      (static_cast<std::size_t>(std::min(items, kMaxItems)) + local - 1) / local;
  const std::size_t global = groups * local;
  HETERO_CL_CHECK(
      clEnqueueNDRangeKernel(queue, kernel_, 1, nullptr, &global, &local, 0, nullptr, nullptr));
}

}  // namespace hetero::opencl
