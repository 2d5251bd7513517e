// SPDX-License-Identifier: Apache-2.0
#include "cuda_check.hpp"

#include <exception>
#include <string>

#include <hetero/error.hpp>

#include "device_health.hpp"

namespace hetero::cuda {
namespace {

std::string where(const char* call, const char* file, int line) {
  std::string f = file;
  if (const auto slash = f.rfind('/'); slash != std::string::npos) f = f.substr(slash + 1);
  return std::string(call) + " failed at " + f + ":" + std::to_string(line);
}

}  // namespace

bool is_sticky(cudaError_t e) noexcept {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorAssert:
    case cudaErrorContextIsDestroyed:
    case cudaErrorDevicesUnavailable:
      return true;
    default:
      return false;
  }
}

void fail(cudaError_t e, const char* call, const char* file, int line) {
  const std::string message = "cuda: " + where(call, file, line) + ": " + describe(e);
  if (is_sticky(e)) {
    int device = -1;
    (void)cudaGetDevice(&device);
    device_health().mark_lost(device, message);
    throw DeviceUnavailableError(message + " (device cuda:" + std::to_string(device) +
                                 " is lost for this process; other devices keep working)");
  }
  (void)cudaGetLastError();  // a non-sticky error must not resurface at the next check
  if (e == cudaErrorMemoryAllocation) throw OutOfMemoryError(message);
  throw Error(message);
}

// cuBLAS's statuses (cuBLAS documentation, "cublasStatus_t"), named here rather than by
// cublasGetStatusName so that describing one never needs the library loaded.
const char* status_name(cublasStatus_t s) noexcept {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}
const char* status_text(cublasStatus_t s) noexcept {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS:
      return "the operation completed successfully";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "the cuBLAS library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "resource allocation failed inside cuBLAS";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "an unsupported value or parameter was passed";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "the function requires a feature absent from the device architecture";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "an internal cuBLAS operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "the functionality requested requires some license";
  }
  return "unknown cuBLAS status";
}

void fail(cublasStatus_t s, const char* call, const char* file, int line) {
  const std::string message = "cuda: " + where(call, file, line) + ": " + describe(s);
  if (s == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError(message);
  throw Error(message);
}

}  // namespace hetero::cuda
