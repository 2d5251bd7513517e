// SPDX-License-Identifier: Apache-2.0
#pragma once
// CudnnLibrary: the cuDNN entry points the cuda plugin's convolution uses (the legacy
// convolution API of cuDNN 9, as PyTorch's cudnn convolution), resolved from libcudnn on
// first use (Boost.DLL), as CublasLibrary does for cuBLAS. cuDNN is optional: where it
// cannot be loaded, supports() says no to the convolution kernels and the core composes
// convolution from im2col and cuBLAS GEMM as before.
//
// The library is looked for where the plugin was built against it (HETERO_CUDNN_PATH, the
// CUDA Toolkit's copy, when the build found one), then by its soname on the loader's usual
// path (LD_LIBRARY_PATH included: a PyTorch wheel's nvidia/cudnn/lib serves).
//
// Lifetime (docs/design/plugin-lifetime.md): the backend owns the one CudnnLibrary and
// declares it before its devices, so every cuDNN handle is destroyed while libcudnn is
// still mapped.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include <cudnn.h>

namespace boost::dll {
class shared_library;
}

namespace hetero::cuda {

/// Function pointers of the cuDNN API used here (declarations from cudnn.h).
struct CudnnApi {
  decltype(&cudnnGetVersion) get_version = nullptr;
  decltype(&cudnnGetErrorString) get_error_string = nullptr;
  decltype(&cudnnCreate) create = nullptr;
  decltype(&cudnnDestroy) destroy = nullptr;
  decltype(&cudnnSetStream) set_stream = nullptr;
  decltype(&cudnnCreateTensorDescriptor) create_tensor = nullptr;
  decltype(&cudnnSetTensor4dDescriptorEx) set_tensor_4d = nullptr;
  decltype(&cudnnDestroyTensorDescriptor) destroy_tensor = nullptr;
  decltype(&cudnnCreateFilterDescriptor) create_filter = nullptr;
  decltype(&cudnnSetFilter4dDescriptor) set_filter_4d = nullptr;
  decltype(&cudnnDestroyFilterDescriptor) destroy_filter = nullptr;
  decltype(&cudnnCreateConvolutionDescriptor) create_convolution = nullptr;
  decltype(&cudnnSetConvolution2dDescriptor) set_convolution_2d = nullptr;
  decltype(&cudnnSetConvolutionGroupCount) set_group_count = nullptr;
  decltype(&cudnnSetConvolutionMathType) set_math_type = nullptr;
  decltype(&cudnnDestroyConvolutionDescriptor) destroy_convolution = nullptr;
  decltype(&cudnnGetConvolutionForwardAlgorithm_v7) forward_algorithms = nullptr;
  decltype(&cudnnConvolutionForward) forward = nullptr;
  decltype(&cudnnGetConvolutionBackwardDataAlgorithm_v7) backward_data_algorithms = nullptr;
  decltype(&cudnnConvolutionBackwardData) backward_data = nullptr;
  decltype(&cudnnGetConvolutionBackwardFilterAlgorithm_v7) backward_filter_algorithms = nullptr;
  decltype(&cudnnConvolutionBackwardFilter) backward_filter = nullptr;
};

class CudnnLibrary {
 public:
  CudnnLibrary();
  /// Unloads libcudnn if it was loaded: every handle made from it must be gone.
  ~CudnnLibrary();
  CudnnLibrary(const CudnnLibrary&) = delete;
  CudnnLibrary& operator=(const CudnnLibrary&) = delete;

  /// The API, loading libcudnn on the first call (thread-safe). Throws
  /// DeviceUnavailableError naming the paths tried and the loader's message when it cannot
  /// be loaded, lacks a symbol or is older than cuDNN 9; the outcome of the first attempt
  /// is kept (available() is asked once per device when the plugin loads).
  const CudnnApi& api();
  /// Whether api() succeeds (loading the library on the first call); never throws.
  bool available() noexcept;
  /// Why the library is unavailable ("" when it is loaded or not tried yet).
  std::string unavailable_reason() const;
  /// The loaded library's version (cudnnGetVersion(), e.g. 91900), 0 when not loaded.
  std::size_t version() const noexcept;

 private:
  void load_locked();  // mutex_ held; sets api_ or reason_

  mutable std::mutex mutex_;
  std::unique_ptr<boost::dll::shared_library> library_;
  CudnnApi api_;
  std::string reason_;
  std::atomic<bool> loaded_{false};
  bool tried_ = false;  // mutex_
};

/// Throws the hetero::Error for a failed cuDNN call: OutOfMemoryError for
/// CUDNN_STATUS_ALLOC_FAILED, NotImplementedError for CUDNN_STATUS_NOT_SUPPORTED* (a
/// geometry or dtype cuDNN declines), hetero::Error otherwise; the message names the call,
/// file, line and cuDNN's text.
[[noreturn]] void fail(const CudnnApi& api, cudnnStatus_t s, const char* call, const char* file,
                       int line);

}  // namespace hetero::cuda

/// Checks a cuDNN call made through `api` (a CudnnApi).
#define HETERO_CUDNN_CHECK(api, call)                                              \
  do {                                                                             \
    const cudnnStatus_t hetero_cudnn_status = (call);                              \
    if (hetero_cudnn_status != CUDNN_STATUS_SUCCESS)                               \
      ::hetero::cuda::fail((api), hetero_cudnn_status, #call, __FILE__, __LINE__); \
  } while (0)
