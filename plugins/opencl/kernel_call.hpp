// SPDX-License-Identifier: Apache-2.0
#pragma once
// KernelCall — sets the arguments of one kernel launch in order and enqueues it. A fresh
// cl_kernel per launch: clSetKernelArg is not thread-safe on a shared kernel object, and
// the queue keeps what it needs after clReleaseKernel.
#include <cstdint>

#include <hetero/sdk/kernel_args.hpp>

#include "opencl.hpp"

namespace hetero::opencl {

class KernelCall {
 public:
  KernelCall(cl_program program, const char* name);
  ~KernelCall();
  KernelCall(const KernelCall&) = delete;
  KernelCall& operator=(const KernelCall&) = delete;

  /// The next argument, passed by value (sizeof(T) bytes).
  template <class T>
  KernelCall& arg(const T& value) {
    set(sizeof(T), &value);
    return *this;
  }
  /// The next argument: the cl_mem of `buffer`.
  KernelCall& mem(const Buffer* buffer);
  /// The four arguments of VIEW(name) in cl/common.cl: offset, ndim, shape, strides.
  KernelCall& view(const StridedView& v);
  /// mem(v.buffer) then view(v).
  KernelCall& buffer_view(const StridedView& v) { return mem(v.buffer).view(v); }
  /// Enqueues over `items` work items, one each up to 2^31 (the kernels loop beyond), in
  /// work-groups of a fixed size (256 or the kernel's maximum; the global size rounded up).
  /// Throws hetero::Error naming the OpenCL status where a call fails.
  void launch(cl_command_queue queue, std::int64_t items);

 private:
  void set(std::size_t size, const void* value);
  cl_kernel kernel_ = nullptr;
  const char* name_;
  cl_uint index_ = 0;
};

}  // namespace hetero::opencl
