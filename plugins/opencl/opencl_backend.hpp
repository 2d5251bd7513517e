// SPDX-License-Identifier: Apache-2.0
#pragma once
// OpenClBackend — hetero::Backend over every OpenCL device of every platform the ICD
// loader finds (PoCL's CPU device on these machines): device `opencl:i` is the i-th
// device in platform order. Buffers are cl_mem, each device's stream is one in-order
// command queue, events are markers, GEMM is CLBlast, the other kernels are OpenCL C
// (cl/*.cl) compiled once per context and build options.
#include <memory>
#include <string>
#include <vector>

#include <hetero/sdk/backend.hpp>

#include "opencl_device.hpp"

namespace hetero::opencl {

class OpenClBackend final : public Backend {
 public:
  /// Enumerates platforms and devices and creates a context per platform and a queue
  /// per device. No platform (no ICD, or none usable) gives 0 devices with the reason;
  /// it never throws for that.
  OpenClBackend();
  ~OpenClBackend() override;

  std::string name() const override { return "opencl"; }
  int device_count() const noexcept override { return static_cast<int>(devices_.size()); }
  std::string unavailable_reason() const override { return reason_; }
  DeviceProperties device_properties(int device) const override;
  /// The tables' ops, without float64 (and normal random numbers) on devices that lack
  /// cl_khr_fp64.
  bool supports(OpRef op, DType dtype, int device) const override;
  /// Yes for the widening sums: sum of int8, uint8 or int32 into int64 (reduce.cl's reduce_long).
  bool reduces_into(ReductionOp op, DType in_dtype, DType out_dtype, int device) const override;
  Capabilities capabilities(int device) const override;
  MemoryStats memory_stats(int device) const override;

  /// clCreateBuffer (a 0-byte request gets a 1-byte cl_mem and reports size 0). Throws
  /// OutOfMemoryError naming device, requested and free bytes.
  std::unique_ptr<Buffer> allocate(int device, std::size_t bytes) override;
  void empty_cache(int device) override;
  Stream& default_stream(int device) override;

  void copy_host_to_device(const void* src, Buffer& dst, std::size_t dst_offset, std::size_t bytes,
                           Stream& stream) override;
  void copy_device_to_host(const Buffer& src, std::size_t src_offset, void* dst, std::size_t bytes,
                           Stream& stream) override;
  /// clEnqueueCopyBuffer on dst's queue, after a marker of src's queue where the devices
  /// differ; between platforms (no shared context) staged through host memory.
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

 private:
  OpenClDevice& device(int index) const;
  OpenClDevice& device_of(const Stream& stream) const { return device(stream.device()); }

  std::vector<std::unique_ptr<OpenClDevice>> devices_;
  std::string reason_;
};

/// "OpenCL <platform versions>, CLBlast x.y.z" for the plugin's info record.
std::string vendor_versions();

}  // namespace hetero::opencl
