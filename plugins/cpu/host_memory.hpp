// SPDX-License-Identifier: Apache-2.0
#pragma once
// The CPU device's raw memory (CachingAllocator::RawMemory): 64-byte aligned host blocks.
//
// Note [Large blocks are mapped]: with the pool on, a block of kMapThreshold bytes or more
// is its own anonymous mapping (mmap), and releasing it unmaps it, so that memory the pool
// gives back really leaves the process. Through malloc it would often stay resident:
// glibc raises its mmap threshold after each large free (up to 32 MiB), after which large
// blocks come from the heap, where the holes between live blocks are never returned. That
// kept 12 GB resident for 1.4 GB the pool held. With the pool off (HETERO_MEMORY_POOL=0,
// the sanitizer runs) every block comes from aligned_alloc, where AddressSanitizer checks
// its bounds and its use after free.
#include <cstddef>

namespace hetero::cpu {

class HostMemory {
 public:
  /// Blocks at least this large (bytes) are mapped when `map_large` (Note [Large blocks are
  /// mapped]).
  static constexpr std::size_t kMapThreshold = std::size_t{256} << 10;

  /// Blocks at least this large are offered transparent huge pages (madvise).
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  explicit HostMemory(bool map_large) noexcept : map_large_(map_large) {}
  /// A block of `bytes` bytes (a multiple of 512), 64-byte aligned; nullptr when the
  /// system refuses. Never throws.
  void* allocate(std::size_t bytes) const noexcept;
  /// Gives back a block from allocate() of the same `bytes`. Never throws.
  void release(void* ptr, std::size_t bytes) const noexcept;

 private:
  bool mapped(std::size_t bytes) const noexcept { return map_large_ && bytes >= kMapThreshold; }
  bool map_large_;
};

}  // namespace hetero::cpu
