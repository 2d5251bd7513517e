// SPDX-License-Identifier: Apache-2.0
#pragma once
// CpuBackend: HETERO_CPU_DEVICES=N virtual devices cpu:0..N-1 over host memory; GEMM on
// OpenBLAS, the other kernels as strided loops (kernels_*.cpp). Each device has its own
// worker thread running its stream's work in order, its own kernel threads and its own
// memory pool (CpuDevice).
//
// Threads: HETERO_CPU_THREADS (default: all cores) are split evenly between the devices;
// each device runs its kernels and its GEMMs on max(1, THREADS / DEVICES) threads, so
// two devices on two cores compute at once, one thread each, and one device uses both.
// OpenBLAS runs single-threaded: a GEMM is split over the device's kernel threads
// (Note [GEMM on the kernel pool], openblas_gemm.cpp).
#include <memory>
#include <vector>

#include <hetero/sdk/backend.hpp>

#include "cpu_device.hpp"

namespace hetero::cpu {

class CpuBackend final : public Backend {
 public:
  /// Reads HETERO_CPU_DEVICES (1..64, default 1), HETERO_CPU_THREADS (1..4096, default:
  /// all cores), HETERO_CPU_INLINE_LIMIT (elements, default 1048576; 0 queues all work) and
  /// HETERO_MEMORY_POOL (0 turns the pool off). Throws hetero::Error naming the variable
  /// for a malformed value.
  CpuBackend();
  /// shutdown_workers().
  ~CpuBackend() override;
  /// Finishes every device's queued work and joins the workers; work submitted later runs
  /// on the submitting thread. Idempotent. Called at process exit (Note [Finish queued
  /// work at exit], cpu_backend.cpp) and by the destructor.
  void shutdown_workers() noexcept;

  std::string name() const override { return "cpu"; }
  int device_count() const noexcept override { return static_cast<int>(devices_.size()); }
  DeviceProperties device_properties(int device) const override;
  Capabilities capabilities(int device) const override;
  MemoryStats memory_stats(int device) const override;

  std::unique_ptr<Buffer> allocate(int device, std::size_t bytes) override;
  std::unique_ptr<Buffer> adopt(int device, void* handle, std::size_t bytes,
                                std::function<void()> release) override;
  void empty_cache(int device) override;
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
  void reduce(ReductionOp op, const StridedView& in, const StridedView& out,
              Stream& stream) override;
  void gather(const StridedView& src, const StridedView& index, int dim, const StridedView& out,
              Stream& stream) override;
  void scatter_add(const StridedView& out, const StridedView& index, int dim,
                   const StridedView& src, Stream& stream) override;
  void random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
              std::uint64_t offset, Stream& stream) override;
  void gemm(const GemmArgs& args, Stream& stream) override;
  /// The fused softmax and log_softmax (kernels::softmax), on every floating dtype.
  void softmax(SoftmaxOp op, const StridedView& in, const StridedView& out, int dim,
               Stream& stream) override;
  /// The convolution kernels (kernels::conv2d), on float32 and float64.
  void conv2d(Conv2dOp op, const Conv2dArgs& args, const StridedView& a, const StridedView& b,
              const StridedView& out, Stream& stream) override;
  /// The 3-d convolution kernels (kernels::conv3d): float32 on oneDNN.
  void conv3d(Conv3dOp op, const Conv3dArgs& args, const StridedView& a, const StridedView& b,
              const StridedView& out, Stream& stream) override;
  /// The convolution with its bias (kernels::conv2d_bias), on float32 and float64.
  void conv2d_bias(const Conv2dArgs& args, const StridedView& input, const StridedView& weight,
                   const StridedView& bias, const StridedView& out, Stream& stream) override;
  /// The batch normalisation kernels (kernels::batch_norm), on float32 and float64.
  void batch_norm(BatchNormOp op, const BatchNormArgs& args, const BatchNormViews& views,
                  Stream& stream) override;
  /// The max pooling kernels (kernels::pool2d), on float32 and float64.
  void pool2d(Pool2dOp op, const Pool2dArgs& args, const Pool2dViews& views,
              Stream& stream) override;
  /// A timestamp on the device's queue (CpuStream::record_timestamp): steady_clock time when
  /// the queue reaches it.
  std::unique_ptr<Event> record_timestamp(Stream& stream) override;
  /// Seconds between two complete timestamps of one cpu device. Error otherwise.
  double elapsed_seconds(Event& start, Event& end) override;
  /// The tables' ops, the fused softmax on floating dtypes, convolution, batch norm and max
  /// pooling on float32/float64.
  bool supports(OpRef op, DType dtype, int device) const override;
  /// Yes for the widening sums: sum of int8, uint8 or int32 into int64, and sum and mean of
  /// float16 or bfloat16 into float32 (kernels::reduce).
  bool reduces_into(ReductionOp op, DType in_dtype, DType out_dtype, int device) const override;

 private:
  CpuDevice& cpu_device(int device) const;
  static CpuDevice& on(Stream& stream);

  std::vector<std::shared_ptr<CpuDevice>> devices_;
  std::size_t total_memory_ = 0;
};

}  // namespace hetero::cpu
