// SPDX-License-Identifier: Apache-2.0
#pragma once
// TemplateBackend — the smallest complete hetero backend: one device whose memory is host
// memory (new[]), a stream that runs each piece of work as soon as it is queued, and
// plain loops for the kernels (template_kernels.cpp). It passes the conformance kit.
//
// To write a real backend, keep the structure and replace:
//   - TemplateBuffer's new[]/delete[]   with your device's allocate/free,
//   - TemplateStream                    with a queue of your device (and real events),
//   - the copies                        with your host<->device and device<->device copies,
//   - kernels::*                        with kernels launched on your queue.
#include <memory>

#include <hetero/sdk/backend.hpp>
#include <hetero/sdk/memory_counter.hpp>

namespace hetero::template_backend {

/// Host memory standing in for device memory. handle() and host_pointer() are the same
/// address here; a device backend returns its own handle and nullptr.
class TemplateBuffer final : public Buffer {
 public:
  /// Allocates `bytes` (std::bad_alloc when the host has no room) and counts it in `memory`.
  TemplateBuffer(std::size_t bytes, MemoryCounter& memory);
  ~TemplateBuffer() override;
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return 0; }
  void* handle() const noexcept override { return data_.get(); }
  void* host_pointer() const noexcept override { return data_.get(); }

 private:
  std::size_t bytes_;
  std::unique_ptr<unsigned char[]> data_;
  MemoryCounter& memory_;
};

/// Work runs when it is queued, so synchronize() and events have nothing to wait for.
class TemplateStream final : public Stream {
 public:
  int device() const noexcept override { return 0; }
  void synchronize() override {}
  std::unique_ptr<Event> record() override;
  void wait(Event&) override {}
};

class TemplateBackend final : public Backend {
 public:
  /// The name given to hetero_add_backend (HETERO_PLUGIN_NAME): "template" here.
  std::string name() const override { return HETERO_PLUGIN_NAME; }
  /// What this backend runs: here every op and dtype the tables define (Backend's default).
  /// A backend that lacks a kernel, or whose device lacks a dtype, answers false for it; the
  /// core then raises NotImplementedError instead of calling, and the conformance kit
  /// reports the op as skipped.
  bool supports(OpRef op, DType dtype, int device) const override;
  int device_count() const noexcept override { return 1; }
  DeviceProperties device_properties(int device) const override;
  Capabilities capabilities(int device) const override;
  MemoryStats memory_stats(int device) const override;
  std::unique_ptr<Buffer> allocate(int device, std::size_t bytes) override;
  Stream& default_stream(int) override { return stream_; }

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
#if HETERO_TARGET_INTERFACE_MINOR >= 4  // (guarded only because hetero's tests build this
                                        // file for minor 0 too; a plugin keeps it plain)
  void ternary(TernaryOp op, const StridedView& c, const StridedView& x, const StridedView& y,
               const StridedView& out, Stream& stream) override;
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 6
  void gather(const StridedView& src, const StridedView& index, int dim, const StridedView& out,
              Stream& stream) override;
  void scatter_add(const StridedView& out, const StridedView& index, int dim,
                   const StridedView& src, Stream& stream) override;
#endif
  void reduce(ReductionOp op, const StridedView& in, const StridedView& out,
              Stream& stream) override;
  void random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
              std::uint64_t offset, Stream& stream) override;
  void gemm(const GemmArgs& args, Stream& stream) override;

 private:
  TemplateStream stream_;
  MemoryCounter memory_;  // live bytes, peak and allocation count (Backend::memory_stats)
};

}  // namespace hetero::template_backend
