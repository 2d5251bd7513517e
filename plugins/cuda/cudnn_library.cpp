// SPDX-License-Identifier: Apache-2.0
#include "cudnn_library.hpp"

#include <boost/dll/shared_library.hpp>

#include <hetero/error.hpp>

#include "library_loader.hpp"

namespace hetero::cuda {
namespace {

boost::dll::shared_library open_cudnn(std::string& tried) {
#ifdef HETERO_CUDNN_PATH
  return open_first({HETERO_CUDNN_PATH, "libcudnn.so.9", "libcudnn.so"}, tried);
#else
  return open_first({"libcudnn.so.9", "libcudnn.so"}, tried);
#endif
}

template <class F>
bool resolve(const boost::dll::shared_library& lib, F& fn, const char* symbol,
             std::string& missing) {
  if (!lib.has(symbol)) {
    missing += std::string(missing.empty() ? "" : ", ") + symbol;
    return false;
  }
  fn = reinterpret_cast<F>(lib.get<void()>(symbol));
  return true;
}

std::string where(const char* call, const char* file, int line) {
  std::string f = file;
  if (const auto slash = f.rfind('/'); slash != std::string::npos) f = f.substr(slash + 1);
  return std::string(call) + " failed at " + f + ":" + std::to_string(line);
}

}  // namespace

CudnnLibrary::CudnnLibrary() = default;
CudnnLibrary::~CudnnLibrary() = default;

void CudnnLibrary::load_locked() {
  tried_ = true;
  std::string tried;
  auto lib = std::make_unique<boost::dll::shared_library>(open_cudnn(tried));
  if (!lib->is_loaded()) {
    reason_ = "cuda: cannot load cuDNN (" + tried + ")";
    return;
  }
  CudnnApi a;
  std::string missing;
  resolve(*lib, a.get_version, "cudnnGetVersion", missing);
  resolve(*lib, a.get_error_string, "cudnnGetErrorString", missing);
  resolve(*lib, a.create, "cudnnCreate", missing);
  resolve(*lib, a.destroy, "cudnnDestroy", missing);
  resolve(*lib, a.set_stream, "cudnnSetStream", missing);
  resolve(*lib, a.create_tensor, "cudnnCreateTensorDescriptor", missing);
  resolve(*lib, a.set_tensor_4d, "cudnnSetTensor4dDescriptorEx", missing);
  resolve(*lib, a.destroy_tensor, "cudnnDestroyTensorDescriptor", missing);
  resolve(*lib, a.create_filter, "cudnnCreateFilterDescriptor", missing);
  resolve(*lib, a.set_filter_4d, "cudnnSetFilter4dDescriptor", missing);
  resolve(*lib, a.destroy_filter, "cudnnDestroyFilterDescriptor", missing);
  resolve(*lib, a.create_convolution, "cudnnCreateConvolutionDescriptor", missing);
  resolve(*lib, a.set_convolution_2d, "cudnnSetConvolution2dDescriptor", missing);
  resolve(*lib, a.set_group_count, "cudnnSetConvolutionGroupCount", missing);
  resolve(*lib, a.set_math_type, "cudnnSetConvolutionMathType", missing);
  resolve(*lib, a.destroy_convolution, "cudnnDestroyConvolutionDescriptor", missing);
  resolve(*lib, a.forward_algorithms, "cudnnGetConvolutionForwardAlgorithm_v7", missing);
  resolve(*lib, a.forward, "cudnnConvolutionForward", missing);
  resolve(*lib, a.backward_data_algorithms, "cudnnGetConvolutionBackwardDataAlgorithm_v7", missing);
  resolve(*lib, a.backward_data, "cudnnConvolutionBackwardData", missing);
  resolve(*lib, a.backward_filter_algorithms, "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
          missing);
  resolve(*lib, a.backward_filter, "cudnnConvolutionBackwardFilter", missing);
  if (!missing.empty()) {
    reason_ = "cuda: cuDNN at " + lib->location().string() + " lacks " + missing;
    return;
  }
  // The API above is cuDNN 9's (libcudnn.so.9 dispatching to libcudnn_cnn and the engines).
  if (const std::size_t v = a.get_version(); v < 90000) {
    reason_ = "cuda: cuDNN " + std::to_string(v) + " at " + lib->location().string() +
              " is older than 9.0";
    return;
  }
  library_ = std::move(lib);
  api_ = a;
  loaded_.store(true, std::memory_order_release);
}

const CudnnApi& CudnnLibrary::api() {
  if (loaded_.load(std::memory_order_acquire)) return api_;
  std::lock_guard lock(mutex_);
  if (!tried_) load_locked();
  if (!loaded_.load(std::memory_order_relaxed)) throw DeviceUnavailableError(reason_);
  return api_;
}

bool CudnnLibrary::available() noexcept {
  if (loaded_.load(std::memory_order_acquire)) return true;
  try {
    std::lock_guard lock(mutex_);
    if (!tried_) load_locked();
  } catch (...) {  // std::bad_alloc, a loader exception: unavailable
    return false;
  }
  return loaded_.load(std::memory_order_acquire);
}

std::string CudnnLibrary::unavailable_reason() const {
  std::lock_guard lock(mutex_);
  return reason_;
}

std::size_t CudnnLibrary::version() const noexcept {
  return loaded_.load(std::memory_order_acquire) ? api_.get_version() : 0;
}

void fail(const CudnnApi& api, cudnnStatus_t s, const char* call, const char* file, int line) {
  const std::string message = "cuda: " + where(call, file, line) + ": " +
                              (api.get_error_string ? api.get_error_string(s) : "cuDNN error") +
                              " (cudnnStatus_t " + std::to_string(static_cast<int>(s)) + ")";
  if (s == CUDNN_STATUS_ALLOC_FAILED) throw OutOfMemoryError(message);
  if (s == CUDNN_STATUS_NOT_SUPPORTED || (s >= 3000 && s < 4000))  // the NOT_SUPPORTED family
    throw NotImplementedError(message);
  throw Error(message);
}

}  // namespace hetero::cuda
