// SPDX-License-Identifier: Apache-2.0
#pragma once
// CudaBackend: hetero::Backend on the CUDA runtime and cuBLAS. Devices are those the
// runtime reports (so CUDA_VISIBLE_DEVICES applies); per-device state is created on
// first use. Without a usable driver or GPU the backend has 0 devices and says why.
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include <hetero/sdk/backend.hpp>

#include "cublas_library.hpp"
#include "cuda_caching_allocator.hpp"
#include "cuda_device.hpp"
#ifdef HETERO_CUDA_CUDNN
#include "cudnn_library.hpp"
#endif

namespace hetero::cuda {

class CudaBackend final : public Backend {
 public:
  CudaBackend();
  ~CudaBackend() override;

  std::string name() const override { return "cuda"; }
  int device_count() const noexcept override { return count_; }
  std::string unavailable_reason() const override { return reason_; }
  DeviceProperties device_properties(int device) const override;
  Capabilities capabilities(int device) const override;
  MemoryStats memory_stats(int device) const override;

  std::unique_ptr<Buffer> allocate(int device, std::size_t bytes) override;
  std::unique_ptr<Buffer> adopt(int device, void* handle, std::size_t bytes,
                                std::function<void()> release) override;
  void empty_cache(int device) override;
  std::unique_ptr<Buffer> allocate_pinned_host(std::size_t bytes) override;
  Stream& default_stream(int device) override;

  void copy_host_to_device(const void* src, Buffer& dst, std::size_t dst_offset, std::size_t bytes,
                           Stream& stream) override;
  void copy_device_to_host(const Buffer& src, std::size_t src_offset, void* dst, std::size_t bytes,
                           Stream& stream) override;
  void copy_device_to_device(const Buffer& src, std::size_t src_offset, Buffer& dst,
                             std::size_t dst_offset, std::size_t bytes, Stream& stream) override;

  void fill(const StridedView& out, Scalar value, Stream& stream) override;
  void cast(const StridedView& src, const StridedView& dst, Stream& stream) override;
  void unary(UnaryOp op, const StridedView& in, const StridedView& out, Stream& stream) override;
  void binary(BinaryOp op, const StridedView& a, const StridedView& b, const StridedView& out,
              Stream& stream) override;
  void ternary(TernaryOp op, const StridedView& c, const StridedView& x, const StridedView& y,
               const StridedView& out, Stream& stream) override;
  void gather(const StridedView& src, const StridedView& index, int dim, const StridedView& out,
              Stream& stream) override;
  void scatter_add(const StridedView& out, const StridedView& index, int dim,
                   const StridedView& src, Stream& stream) override;
  void reduce(ReductionOp op, const StridedView& in, const StridedView& out,
              Stream& stream) override;
  void random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
              std::uint64_t offset, Stream& stream) override;
  void gemm(const GemmArgs& args, Stream& stream) override;
  /// Yes to the op tables' ops, and to the convolution kernels (Conv2dOp::forward,
  /// backward_input, backward_weight) of float32, float64 and float16 in a build with cuDNN
  /// where cuDNN can be loaded (the first such question loads it). bfloat16 convolution is
  /// composed from GEMM (docs/semantics.md row 72).
  bool supports(OpRef op, DType dtype, int device) const override;
  /// The convolution kernels on cuDNN (cudnn_conv.hpp), for the dtypes supports() names.
  void conv2d(Conv2dOp op, const Conv2dArgs& args, const StridedView& a, const StridedView& b,
              const StridedView& out, Stream& stream) override;
  /// A CUDA event with timing recorded on `stream` (cudaEventRecord).
  std::unique_ptr<Event> record_timestamp(Stream& stream) override;
  /// cudaEventElapsedTime between two complete timestamps of one device, in seconds.
  double elapsed_seconds(Event& start, Event& end) override;

 private:
  /// The state of `index`, created on first use; throws DeviceUnavailableError when the
  /// device is lost. The core checks the index before any call (backend.hpp): an index out
  /// of range is an internal assertion, not an InvalidDeviceError.
  CudaDevice& device(int index) const;
  /// The device of a stream given to a queued method (with the same checks).
  CudaDevice& device_of(const Stream& stream) const { return device(stream.device()); }
  /// Streams of every device created so far (pinned blocks are fenced on all of them).
  std::vector<StreamRef> all_streams() const;

  int count_ = 0;
  std::string reason_;
  // Declared before devices_: destroyed after them, so every cuBLAS and cuDNN handle is
  // destroyed while its library is mapped (docs/design/plugin-lifetime.md).
  mutable CublasLibrary cublas_;  // loaded lazily, also from const device lookups
#ifdef HETERO_CUDA_CUDNN
  mutable CudnnLibrary cudnn_;  // loaded lazily: by supports() of a convolution op
#endif
  mutable std::mutex mutex_;  // guards devices_ creation
  mutable std::vector<std::unique_ptr<CudaDevice>> devices_;
  // devices_[i].get() once created, read without the mutex (device() runs before every
  // operation).
  std::unique_ptr<std::atomic<CudaDevice*>[]> created_;
  CudaCachingAllocator pinned_{CudaCachingAllocator::Memory::pinned_host, 0};
};

}  // namespace hetero::cuda
