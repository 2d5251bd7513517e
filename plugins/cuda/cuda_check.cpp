#include "cuda_check.hpp"


#include <exception>
#include <string>

#include <hetero/error.hpp>

#include "cublas_library.hpp"
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

// A cublasStatus_t comes from a cuBLAS call, so cuBLAS is normally loaded by now.
const char* status_name(cublasStatus_t s) noexcept {
  try {
    return cublas_api().status_name(s);
  } catch (...) {
    return "CUBLAS_STATUS_UNKNOWN";
  }
}
const char* status_text(cublasStatus_t s) noexcept {
  try {
    return cublas_api().status_string(s);
  } catch (const std::exception&) {
    return "cuBLAS could not be loaded to describe this status";
  }
}

void fail(cublasStatus_t s, const char* call, const char* file, int line) {
  const std::string message = "cuda: " + where(call, file, line) + ": " + describe(s);
  if (s == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError(message);
  throw Error(message);
}

}  // namespace hetero::cuda
