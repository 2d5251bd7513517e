// SPDX-License-Identifier: Apache-2.0
#pragma once
// CpuBuffer: a block of 64-byte aligned host memory from its device's pool; freeing it
// returns the block to the pool (Note [Stream-ordered reuse], caching_allocator.hpp).
//
// HostRef: a Buffer naming host memory it does not own. Queued work points its views at
// HostRefs it owns, so that it never reads the core's Buffer objects, which may be
// destroyed before the work runs (the memory itself stays valid until then).
//
// Both are HostBuffers: they carry the id of the allocation they name, which the poison
// marks use (Note [Poisoned buffers], poison.hpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/caching_allocator.hpp>

#include "poison.hpp"

namespace hetero::cpu {

class CpuDevice;

/// A Buffer of this plugin: host memory and the id of its allocation.
class HostBuffer : public Buffer {
 public:
  /// The allocation's id (poison::next_id()).
  std::uint64_t id() const noexcept { return id_; }

 protected:
  explicit HostBuffer(std::uint64_t id) noexcept : id_(id) {}

 private:
  std::uint64_t id_;
};

/// The allocation id of `b`; 0 for none and for a buffer of another plugin (pinned host
/// memory of, say, the cuda plugin runs as a cpu tensor: no poison mark follows it).
inline std::uint64_t buffer_id(const Buffer* b) noexcept {
  const auto* own = dynamic_cast<const HostBuffer*>(b);
  return own ? own->id() : 0;
}

class CpuBuffer final : public HostBuffer {
 public:
  /// `bytes` as requested (block.size is rounded up).
  CpuBuffer(CachingAllocator::Block block, std::size_t bytes, std::shared_ptr<CpuDevice> device)
      : HostBuffer(poison::next_id()), block_(block), bytes_(bytes), device_(std::move(device)) {}
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

/// Host memory another library owns, adopted without a copy (Backend::adopt): no pool, no
/// poison id; destruction waits for the device's queued work, then calls the owner's
/// release.
class AdoptedBuffer final : public HostBuffer {
 public:
  AdoptedBuffer(void* data, std::size_t bytes, std::shared_ptr<CpuDevice> device,
                std::function<void()> release)
      : HostBuffer(0),
        data_(data),
        bytes_(bytes),
        device_(std::move(device)),
        release_(std::move(release)) {}
  ~AdoptedBuffer() override;
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override;
  void* handle() const noexcept override { return data_; }
  void* host_pointer() const noexcept override { return data_; }

 private:
  void* data_;
  std::size_t bytes_;
  std::shared_ptr<CpuDevice> device_;
  std::function<void()> release_;
};

class HostRef final : public HostBuffer {
 public:
  /// Names `b`'s memory; `b` is a buffer of this plugin.
  explicit HostRef(const Buffer& b) noexcept
      : HostBuffer(buffer_id(&b)), data_(b.handle()), bytes_(b.size()), device_(b.device()) {}
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
