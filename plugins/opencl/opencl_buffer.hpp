// SPDX-License-Identifier: Apache-2.0
#pragma once
// OpenClBuffer — a cl_mem of one device from its pool (opencl_memory.hpp). handle() is
// the cl_mem; the host cannot address it (host_pointer() is null), so the core copies
// through the backend.
#include <memory>

#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/caching_allocator.hpp>

#include "opencl.hpp"

namespace hetero::opencl {

class OpenClBuffer final : public Buffer {
 public:
  /// Owns `block` (a cl_mem of at least `bytes` bytes) until destroyed, then gives it
  /// back to `memory`.
  OpenClBuffer(CachingAllocator::Block block, std::size_t bytes, int device,
               std::shared_ptr<CachingAllocator> memory)
      : block_(block), bytes_(bytes), device_(device), memory_(std::move(memory)) {}
  ~OpenClBuffer() override { memory_->free(block_); }
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return device_; }
  void* handle() const noexcept override { return block_.ptr; }
  cl_mem mem() const noexcept { return static_cast<cl_mem>(block_.ptr); }

 private:
  CachingAllocator::Block block_;
  std::size_t bytes_;
  int device_;
  std::shared_ptr<CachingAllocator> memory_;
};

/// The cl_mem behind a Buffer of this backend.
inline cl_mem mem_of(const Buffer& b) { return static_cast<cl_mem>(b.handle()); }

}  // namespace hetero::opencl
