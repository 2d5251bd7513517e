// SPDX-License-Identifier: Apache-2.0
#pragma once
// One error-check generator for every CUDA library status type. HETERO_CUDA_CHECK(call)
// evaluates `call` once; on failure it throws a hetero::Error naming the call, file,
// line, the status name and text. cudaError_t, cublasStatus_t (and any further library
// with a status_name/status_text/is_success overload) share the same path.
//
// Error kinds: an allocation failure is OutOfMemoryError; a sticky error that leaves the
// device's context unusable (cudaErrorIllegalAddress, cudaErrorLaunchFailure, ...) marks
// the current device lost (device_health.hpp) and is DeviceUnavailableError; the rest is
// hetero::Error. Never aborts.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

namespace hetero::cuda {

inline bool is_success(cudaError_t e) noexcept { return e == cudaSuccess; }
inline const char* status_name(cudaError_t e) noexcept { return cudaGetErrorName(e); }
inline const char* status_text(cudaError_t e) noexcept { return cudaGetErrorString(e); }

inline bool is_success(cublasStatus_t s) noexcept { return s == CUBLAS_STATUS_SUCCESS; }
/// cuBLAS's own names and texts once it is loaded (a cublasStatus_t can only come from it).
const char* status_name(cublasStatus_t s) noexcept;
const char* status_text(cublasStatus_t s) noexcept;

/// "cudaErrorNoDevice: no CUDA-capable device is detected".
template <class Status>
std::string describe(Status s) {
  return std::string(status_name(s)) + ": " + status_text(s);
}

/// True for errors after which the device's CUDA context cannot be used again in this
/// process (CUDA Runtime API, "Error Handling": sticky errors).
bool is_sticky(cudaError_t e) noexcept;

/// Throws the hetero::Error for a failed cudaError_t (see the file comment).
[[noreturn]] void fail(cudaError_t e, const char* call, const char* file, int line);
/// Throws the hetero::Error for a failed cublasStatus_t.
[[noreturn]] void fail(cublasStatus_t s, const char* call, const char* file, int line);

template <class Status>
inline void check(Status s, const char* call, const char* file, int line) {
  if (!is_success(s)) fail(s, call, file, line);
}

}  // namespace hetero::cuda

/// Checks a CUDA runtime or cuBLAS call (see cuda_check.hpp).
#define HETERO_CUDA_CHECK(call) ::hetero::cuda::check((call), #call, __FILE__, __LINE__)
/// Checks the launch of the kernel just started (configuration errors and earlier
/// asynchronous failures surface here).
#define HETERO_CUDA_CHECK_LAUNCH() \
  ::hetero::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
