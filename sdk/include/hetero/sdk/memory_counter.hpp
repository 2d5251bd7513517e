// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file memory_counter.hpp
/// hetero::MemoryCounter — live-byte accounting of one device for backends without a
/// caching allocator (Backend::memory_stats): each allocation and release is counted,
/// reserved equals allocated. Used by the template backend (cpu and opencl pool their
/// memory with CachingAllocator).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include <hetero/device_properties.hpp>

namespace hetero {

/// Thread-safe (atomics). Units: bytes, except the allocation count.
class MemoryCounter {
 public:
  /// Records a new allocation of `bytes` bytes.
  void allocated(std::size_t bytes) noexcept {
    const std::size_t now = allocated_.fetch_add(bytes) + bytes;
    std::size_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
    count_.fetch_add(1);
  }
  /// Records that an allocation of `bytes` bytes was released.
  void released(std::size_t bytes) noexcept { allocated_.fetch_sub(bytes); }

  /// The statistics now; reserved == allocated and pool_hits == 0 (no cache).
  MemoryStats stats() const noexcept {
    MemoryStats s;
    s.allocated = allocated_.load();
    s.reserved = s.allocated;
    s.peak_allocated = peak_.load();
    s.allocation_count = count_.load();
    return s;
  }

 private:
  std::atomic<std::size_t> allocated_{0};
  std::atomic<std::size_t> peak_{0};
  std::atomic<std::uint64_t> count_{0};
};

}  // namespace hetero
