// SPDX-License-Identifier: Apache-2.0
#include "opencl_check.hpp"

#include <hetero/error.hpp>

namespace hetero::opencl {

std::string status_name(cl_int status) {
  switch (status) {
#define HETERO_CL_STATUS(name) \
  case name:                   \
    return #name;
    HETERO_CL_STATUS(CL_SUCCESS)
    HETERO_CL_STATUS(CL_DEVICE_NOT_FOUND)
    HETERO_CL_STATUS(CL_DEVICE_NOT_AVAILABLE)
    HETERO_CL_STATUS(CL_COMPILER_NOT_AVAILABLE)
    HETERO_CL_STATUS(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    HETERO_CL_STATUS(CL_OUT_OF_RESOURCES)
    HETERO_CL_STATUS(CL_OUT_OF_HOST_MEMORY)
    HETERO_CL_STATUS(CL_PROFILING_INFO_NOT_AVAILABLE)
    HETERO_CL_STATUS(CL_MEM_COPY_OVERLAP)
    HETERO_CL_STATUS(CL_BUILD_PROGRAM_FAILURE)
    HETERO_CL_STATUS(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    HETERO_CL_STATUS(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    HETERO_CL_STATUS(CL_COMPILE_PROGRAM_FAILURE)
    HETERO_CL_STATUS(CL_LINK_PROGRAM_FAILURE)
    HETERO_CL_STATUS(CL_INVALID_VALUE)
    HETERO_CL_STATUS(CL_INVALID_DEVICE_TYPE)
    HETERO_CL_STATUS(CL_INVALID_PLATFORM)
    HETERO_CL_STATUS(CL_INVALID_DEVICE)
    HETERO_CL_STATUS(CL_INVALID_CONTEXT)
    HETERO_CL_STATUS(CL_INVALID_QUEUE_PROPERTIES)
    HETERO_CL_STATUS(CL_INVALID_COMMAND_QUEUE)
    HETERO_CL_STATUS(CL_INVALID_HOST_PTR)
    HETERO_CL_STATUS(CL_INVALID_MEM_OBJECT)
    HETERO_CL_STATUS(CL_INVALID_BINARY)
    HETERO_CL_STATUS(CL_INVALID_BUILD_OPTIONS)
    HETERO_CL_STATUS(CL_INVALID_PROGRAM)
    HETERO_CL_STATUS(CL_INVALID_PROGRAM_EXECUTABLE)
    HETERO_CL_STATUS(CL_INVALID_KERNEL_NAME)
    HETERO_CL_STATUS(CL_INVALID_KERNEL_DEFINITION)
    HETERO_CL_STATUS(CL_INVALID_KERNEL)
    HETERO_CL_STATUS(CL_INVALID_ARG_INDEX)
    HETERO_CL_STATUS(CL_INVALID_ARG_VALUE)
    HETERO_CL_STATUS(CL_INVALID_ARG_SIZE)
    HETERO_CL_STATUS(CL_INVALID_KERNEL_ARGS)
    HETERO_CL_STATUS(CL_INVALID_WORK_DIMENSION)
    HETERO_CL_STATUS(CL_INVALID_WORK_GROUP_SIZE)
    HETERO_CL_STATUS(CL_INVALID_WORK_ITEM_SIZE)
    HETERO_CL_STATUS(CL_INVALID_GLOBAL_OFFSET)
    HETERO_CL_STATUS(CL_INVALID_EVENT_WAIT_LIST)
    HETERO_CL_STATUS(CL_INVALID_EVENT)
    HETERO_CL_STATUS(CL_INVALID_OPERATION)
    HETERO_CL_STATUS(CL_INVALID_BUFFER_SIZE)
    HETERO_CL_STATUS(CL_INVALID_GLOBAL_WORK_SIZE)
#undef HETERO_CL_STATUS
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "OpenCL error " + std::to_string(status);
  }
}

bool is_out_of_memory(cl_int status) {
  return status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES ||
         status == CL_OUT_OF_HOST_MEMORY || status == CL_INVALID_BUFFER_SIZE;
}

void fail(cl_int status, const char* what, const char* file, int line) {
  const std::string msg = std::string(what) + " failed at " + file + ":" + std::to_string(line) +
                          ": " + status_name(status) + " (" + std::to_string(status) + ")";
  if (is_out_of_memory(status)) throw OutOfMemoryError("opencl: " + msg);
  throw Error("opencl: " + msg);
}

void fail_clblast(int status, const char* what, const char* file, int line) {
  // CLBlast returns OpenCL statuses as they are and its own below -1000 (clblast.h).
  if (status > -1000) fail(static_cast<cl_int>(status), what, file, line);
  throw Error(std::string("opencl: ") + what + " failed at " + file + ":" + std::to_string(line) +
              ": CLBlast status " + std::to_string(status) + " (see clblast::StatusCode)");
}

}  // namespace hetero::opencl
