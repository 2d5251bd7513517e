// SPDX-License-Identifier: Apache-2.0
#pragma once
// Error checking for OpenCL and CLBlast calls: every status other than success becomes a
// typed hetero::Error naming the call, the file:line and the status (name and number).
// Allocation failures (CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES,
// CL_OUT_OF_HOST_MEMORY, CL_INVALID_BUFFER_SIZE) become OutOfMemoryError.
#include <string>

#include "opencl.hpp"

namespace hetero::opencl {

/// The CL_... name of an OpenCL status code ("CL_INVALID_VALUE"), or "OpenCL error N".
std::string status_name(cl_int status);

/// True for statuses that mean "not enough memory".
bool is_out_of_memory(cl_int status);

/// Throws the hetero::Error for a failed OpenCL call (OutOfMemoryError where
/// is_out_of_memory, else hetero::Error). `what` is the call's text.
[[noreturn]] void fail(cl_int status, const char* what, const char* file, int line);

/// Throws for a failed CLBlast call; CLBlast statuses share OpenCL's numbers below -1000
/// only for its own codes.
[[noreturn]] void fail_clblast(int status, const char* what, const char* file, int line);

}  // namespace hetero::opencl

/// Checks an OpenCL call that returns cl_int.
#define HETERO_CL_CHECK(call)                                               \
  do {                                                                      \
    const cl_int hetero_cl_status_ = (call);                                \
    if (hetero_cl_status_ != CL_SUCCESS)                                    \
      ::hetero::opencl::fail(hetero_cl_status_, #call, __FILE__, __LINE__); \
  } while (0)
