#pragma once
// OpenClBuffer — a cl_mem of one device. handle() is the cl_mem; the host cannot address
// it (host_pointer() is null), so the core copies through the backend.
#include <memory>

#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/memory_counter.hpp>

#include "opencl.hpp"

namespace hetero::opencl {

class OpenClBuffer final : public Buffer {
 public:
  /// Takes ownership of `mem` (one reference), which holds at least `bytes` bytes.
  OpenClBuffer(cl_mem mem, std::size_t bytes, int device, std::shared_ptr<MemoryCounter> counter)
      : mem_(mem), bytes_(bytes), device_(device), counter_(std::move(counter)) {
    counter_->allocated(bytes_);
  }
  /// Releases the cl_mem; OpenCL frees it once the commands queued on it are done.
  ~OpenClBuffer() override {
    clReleaseMemObject(mem_);
    counter_->released(bytes_);
  }
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return device_; }
  void* handle() const noexcept override { return mem_; }
  cl_mem mem() const noexcept { return mem_; }

 private:
  cl_mem mem_;
  std::size_t bytes_;
  int device_;
  std::shared_ptr<MemoryCounter> counter_;
};

/// The cl_mem behind a Buffer of this backend.
inline cl_mem mem_of(const Buffer& b) { return static_cast<cl_mem>(b.handle()); }

}  // namespace hetero::opencl
