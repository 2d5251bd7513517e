#pragma once
// CpuBuffer: a block of 64-byte aligned host memory from its device's pool; freeing it
// returns the block to the pool (Note [Stream-ordered reuse], caching_allocator.hpp).
//
// HostRef: a Buffer naming host memory it does not own. Queued work points its views at
// HostRefs it owns, so that it never reads the core's Buffer objects, which may be
// destroyed before the work runs (the memory itself stays valid until then).
#include <cstddef>
#include <memory>

#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/caching_allocator.hpp>

namespace hetero::cpu {

class CpuDevice;

class CpuBuffer final : public Buffer {
 public:
  /// `bytes` as requested (block.size is rounded up).
  CpuBuffer(CachingAllocator::Block block, std::size_t bytes, std::shared_ptr<CpuDevice> device)
      : block_(block), bytes_(bytes), device_(std::move(device)) {}
  ~CpuBuffer() override;
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override;
  void* handle() const noexcept override { return block_.ptr; }
  void* host_pointer() const noexcept override { return block_.ptr; }

 private:
  CachingAllocator::Block block_;
  std::size_t bytes_;
  std::shared_ptr<CpuDevice> device_;
};

class HostRef final : public Buffer {
 public:
  explicit HostRef(const Buffer& b) noexcept
      : data_(b.handle()), bytes_(b.size()), device_(b.device()) {}
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return device_; }
  void* handle() const noexcept override { return data_; }
  void* host_pointer() const noexcept override { return data_; }

 private:
  void* data_;
  std::size_t bytes_;
  int device_;
};

}  // namespace hetero::cpu
