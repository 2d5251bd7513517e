#pragma once
// Live-byte accounting of one device (Backend::memory_stats). OpenCL has no allocator
// statistics of its own; every clCreateBuffer/clReleaseMemObject of this plugin is
// counted here. Thread-safe.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include <hetero/sdk/device_properties.hpp>

namespace hetero::opencl {

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

  /// allocated == reserved: there is no cache (clReleaseMemObject frees once the queued
  /// commands using the buffer are done, as the OpenCL specification requires).
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

}  // namespace hetero::opencl
