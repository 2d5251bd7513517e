#pragma once
/// @file caching_allocator.hpp
/// hetero::CachingAllocator — a pool of freed device-memory blocks in front of a
/// backend's raw allocator, as PyTorch's CUDA caching allocator and MXNet's "pooled
/// storage manager": repeated allocations of the same sizes are served from the pool
/// without asking the device. Used by the cpu and opencl backends (the cuda backend has
/// its own, which also fences blocks used on other streams).
///
/// Note [Stream-ordered reuse]: a block freed while work queued on its device's stream
/// may still use it goes back to the pool at once, and the next allocation may hand it
/// out again. That is safe because every user of the new owner's memory is ordered after
/// the old owner's work: kernels and copies are queued on the same in-order stream, the
/// host reads and writes only after synchronising that stream, and a copy queued on
/// another device's stream makes this device's stream wait for it (the core orders both
/// streams of a cross-device copy, as torch does). Returning memory to the device
/// (`RawMemory::release`) must itself be stream-ordered: the backend queues it or
/// synchronises first (cudaFreeAsync, clReleaseMemObject).
///
/// Sizes are rounded up to kRoundBytes; a cached block of S bytes serves a request of R
/// rounded bytes when R <= S <= 2R (blocks are not split). Statistics count rounded
/// bytes. Thread-safe: one mutex.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <hetero/device_properties.hpp>

namespace hetero {

class CachingAllocator {
 public:
  /// Allocation granularity in bytes.
  static constexpr std::size_t kRoundBytes = 512;

  /// A block of device memory: the backend's handle (a host pointer, a cl_mem, ...) and
  /// its rounded size in bytes.
  struct Block {
    void* ptr = nullptr;
    std::size_t size = 0;
    /// False for the empty block allocate() returns when the device is out of memory.
    explicit operator bool() const noexcept { return ptr != nullptr; }
  };

  /// Cached blocks by rounded size: a vector per size, kept when it empties, so that caching
  /// and reusing a block of a size seen before allocates nothing. The free list of this pool
  /// and of the cuda backend's. Not thread-safe: the owning pool's mutex guards it.
  class FreeList {
   public:
    /// Removes and returns a cached block that serves a request of `size` rounded bytes
    /// (fits(), the smallest such size first); an empty Block when none does.
    Block take(std::size_t size) {
      for (auto it = blocks_.lower_bound(size); it != blocks_.end() && fits(size, it->first);
           ++it) {
        if (it->second.empty()) continue;
        Block b{it->second.back(), it->first};
        it->second.pop_back();
        return b;
      }
      return {};
    }
    /// Caches `block` (block.size rounded, as allocate() returns it).
    void put(Block block) { blocks_[block.size].push_back(block.ptr); }
    /// Calls f(Block) for every cached block.
    template <class F>
    void for_each(F&& f) const {
      for (const auto& [size, ptrs] : blocks_)
        for (void* ptr : ptrs) f(Block{ptr, size});
    }
    /// Bytes of all cached blocks.
    std::size_t bytes() const noexcept {
      std::size_t n = 0;
      for (const auto& [size, ptrs] : blocks_) n += size * ptrs.size();
      return n;
    }
    /// Forgets every cached block (the caller has released them).
    void clear() noexcept { blocks_.clear(); }

   private:
    std::map<std::size_t, std::vector<void*>> blocks_;  // rounded size -> cached handles
  };

  /// The backend's raw allocator. `allocate(bytes)` returns nullptr when the device is
  /// out of memory (it must not throw for that); `release(ptr, bytes)` gives a block back
  /// to the device once the work queued so far on its stream no longer needs it.
  struct RawMemory {
    std::function<void*(std::size_t)> allocate;
    std::function<void(void*, std::size_t)> release;
  };

  /// `pooling == false` turns the cache off: every free releases at once (what
  /// HETERO_MEMORY_POOL=0 selects, so that AddressSanitizer sees every use after free).
  CachingAllocator(RawMemory raw, bool pooling) : raw_(std::move(raw)), pooling_(pooling) {}
  /// Releases the cached blocks. Blocks still held by buffers are the backend's concern.
  ~CachingAllocator() { empty_cache(); }
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// `bytes` rounded up to kRoundBytes (a 0-byte request takes one granule, so every
  /// buffer has a distinct address); SIZE_MAX when that would overflow.
  static std::size_t round_size(std::size_t bytes) noexcept {
    if (bytes > std::numeric_limits<std::size_t>::max() - kRoundBytes)
      return std::numeric_limits<std::size_t>::max();
    return std::max<std::size_t>(1, (bytes + kRoundBytes - 1) / kRoundBytes) * kRoundBytes;
  }

  /// Whether a cached block of `cached` bytes serves a request of `size` rounded bytes
  /// (size <= cached <= 2 size: blocks are not split, and at least half of one is used).
  static constexpr bool fits(std::size_t size, std::size_t cached) noexcept {
    return size <= cached && cached / 2 <= size;
  }

  /// A block of at least `bytes` bytes: a cached one when one fits (a pool hit), else
  /// one from RawMemory::allocate. Returns a Block with ptr == nullptr when the device
  /// is out of memory; the caller follows Note [Out-of-memory policy]
  /// (<hetero/sdk/memory_policy.hpp>).
  Block allocate(std::size_t bytes) {
    const std::size_t size = round_size(bytes);
    if (size == std::numeric_limits<std::size_t>::max()) return {};
    {
      std::lock_guard lock(mutex_);
      if (Block b = free_.take(size)) {
        ++stats_.pool_hits;
        add_allocated_locked(b.size);
        return b;
      }
    }
    void* ptr = raw_.allocate(size);
    if (!ptr) return {};
    std::lock_guard lock(mutex_);
    ++stats_.allocation_count;
    stats_.reserved += size;
    add_allocated_locked(size);
    return Block{ptr, size};
  }

  /// Returns `block` (from allocate()) to the pool, or to the device when pooling is off.
  /// Never throws.
  void free(Block block) noexcept {
    if (!block.ptr) return;
    {
      std::lock_guard lock(mutex_);
      stats_.allocated -= block.size;
      if (pooling_) {
        free_.put(block);  // no allocation once the size has been seen
        return;
      }
      stats_.reserved -= block.size;
    }
    raw_.release(block.ptr, block.size);
  }

  /// Releases every cached block to the device (as torch.cuda.empty_cache()); returns
  /// the bytes released. Live blocks are not touched.
  std::size_t empty_cache() noexcept {
    FreeList cached;
    {
      std::lock_guard lock(mutex_);
      std::swap(cached, free_);
      stats_.reserved -= cached.bytes();
    }
    cached.for_each([&](Block b) { raw_.release(b.ptr, b.size); });
    return cached.bytes();
  }
  /// allocated / reserved / peak bytes, raw allocation count, pool hits.
  MemoryStats stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
  }

  /// Whether freed blocks are cached.
  bool pooling() const noexcept { return pooling_; }

 private:
  void add_allocated_locked(std::size_t size) {
    stats_.allocated += size;
    stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  }

  RawMemory raw_;
  const bool pooling_;
  mutable std::mutex mutex_;
  FreeList free_;
  MemoryStats stats_;
};

/// Whether backends should pool freed memory: false when HETERO_MEMORY_POOL is "0" (for
/// AddressSanitizer runs, where a pool would hide a use after free), true otherwise.
inline bool memory_pool_enabled() noexcept {
  const char* v = std::getenv("HETERO_MEMORY_POOL");
  return !(v && v[0] == '0' && v[1] == '\0');
}

}  // namespace hetero
