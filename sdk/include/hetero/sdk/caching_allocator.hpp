// SPDX-License-Identifier: Apache-2.0
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
///
/// Note [Cache limit]: the cached bytes are bounded (the `cache_limit` given at
/// construction; memory_cache_limit() reads HETERO_MEMORY_CACHE_LIMIT). A free that takes
/// the cache past it releases the least recently cached blocks to the device until it is
/// within it again, so `reserved <= allocated + cache_limit` always holds: a program whose
/// tensor sizes keep changing (one growing from 1 to 64 MiB) no longer keeps every size
/// it has seen. PyTorch's CUDA allocator bounds its cache only under pressure
/// (garbage_collection_threshold); a host allocator shares memory with everything else on
/// the machine, so the bound here is always on. A block larger than the limit is never
/// cached. The out-of-memory retry (Note [Out-of-memory policy]) and empty_cache() still
/// release everything cached.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <hetero/config.hpp>
#include <hetero/device_properties.hpp>
#include <hetero/error.hpp>

namespace hetero {

/// The pool of freed blocks in front of a backend's raw allocator (see the file comment).
/// Thread-safe.
class CachingAllocator {
 public:
  /// Allocation granularity in bytes.
  static constexpr std::size_t kRoundBytes = 512;

  /// A block of device memory: the backend's handle (a host pointer, a cl_mem, ...) and
  /// its rounded size in bytes.
  struct Block {
    void* ptr = nullptr;   ///< the backend's handle (null: no block)
    std::size_t size = 0;  ///< rounded size in bytes
    /// False for the empty block allocate() returns when the device is out of memory.
    explicit operator bool() const noexcept { return ptr != nullptr; }
  };

  /// Cached blocks by rounded size and by age: take() serves the smallest size that fits,
  /// take_oldest() gives back the least recently cached block (Note [Cache limit]). The free
  /// list of this pool and of the cuda backend's. Not thread-safe: the owning pool's mutex
  /// guards it. put() may throw std::bad_alloc (it then caches nothing).
  class FreeList {
   public:
    /// Removes and returns a cached block that serves a request of `size` rounded bytes
    /// (fits(), the smallest such size first); an empty Block when none does.
    Block take(std::size_t size) {
      for (auto it = by_size_.lower_bound(size); it != by_size_.end() && fits(size, it->first);
           ++it) {
        if (it->second.empty()) continue;
        const auto entry = it->second.back();
        it->second.pop_back();
        return remove(entry);
      }
      return {};
    }
    /// Removes and returns the block cached longest ago; an empty Block when none is.
    Block take_oldest() {
      if (by_age_.empty()) return {};
      const auto entry = by_age_.begin();
      auto& same_size = by_size_[entry->size];
      same_size.erase(std::find(same_size.begin(), same_size.end(), entry));
      return remove(entry);
    }
    /// Caches `block` (block.size rounded, as allocate() returns it) as the newest.
    void put(Block block) {
      by_age_.push_back(block);
      try {
        by_size_[block.size].push_back(std::prev(by_age_.end()));
      } catch (...) {
        by_age_.pop_back();
        throw;
      }
      bytes_ += block.size;
    }
    /// Calls f(Block) for every cached block.
    template <class F>
    void for_each(F&& f) const {
      for (const Block& b : by_age_) f(b);
    }
    /// Bytes of all cached blocks.
    std::size_t bytes() const noexcept { return bytes_; }
    /// Forgets every cached block (the caller has released them).
    void clear() noexcept {
      by_age_.clear();
      by_size_.clear();
      bytes_ = 0;
    }

   private:
    using Age = std::list<Block>::iterator;
    Block remove(Age entry) noexcept {
      const Block b = *entry;
      by_age_.erase(entry);
      bytes_ -= b.size;
      return b;
    }
    std::list<Block> by_age_;                          // oldest first
    std::map<std::size_t, std::vector<Age>> by_size_;  // rounded size -> cached blocks
    std::size_t bytes_ = 0;
  };

  /// The backend's raw allocator. `allocate(bytes)` returns nullptr when the device is
  /// out of memory (it must not throw for that); `release(ptr, bytes)` gives a block back
  /// to the device once the work queued so far on its stream no longer needs it.
  struct RawMemory {
    std::function<void*(std::size_t)> allocate;       ///< bytes -> handle, or null when out
    std::function<void(void*, std::size_t)> release;  ///< handle, bytes: stream-ordered free
  };

  /// `pooling == false` turns the cache off: every free releases at once (what
  /// HETERO_MEMORY_POOL=0 selects, so that AddressSanitizer sees every use after free).
  /// `cache_limit`: the most bytes kept cached (Note [Cache limit]); the default is no bound.
  CachingAllocator(RawMemory raw, bool pooling,
                   std::size_t cache_limit = std::numeric_limits<std::size_t>::max())
      : raw_(std::move(raw)), pooling_(pooling), cache_limit_(cache_limit) {}
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

  /// Returns `block` (from allocate()) to the pool, or to the device when pooling is off
  /// or caching it would pass the cache limit (the oldest cached blocks are released
  /// first, Note [Cache limit]). Never throws.
  void free(Block block) noexcept {
    if (!block.ptr) return;
    Block release = block;
    {
      std::lock_guard lock(mutex_);
      stats_.allocated -= block.size;
      if (pooling_ && block.size <= cache_limit_) {
        try {
          free_.put(block);
          release = free_.bytes() > cache_limit_ ? free_.take_oldest() : Block{};
        } catch (...) {
          // No memory to remember the block: give it back instead.
        }
      }
      if (release) stats_.reserved -= release.size;
    }
    while (release) {
      raw_.release(release.ptr, release.size);
      std::lock_guard lock(mutex_);
      release = free_.bytes() > cache_limit_ ? free_.take_oldest() : Block{};
      if (release) stats_.reserved -= release.size;
    }
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
  /// The most bytes kept cached (Note [Cache limit]).
  std::size_t cache_limit() const noexcept { return cache_limit_; }

 private:
  void add_allocated_locked(std::size_t size) {
    stats_.allocated += size;
    stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  }

  RawMemory raw_;
  const bool pooling_;
  const std::size_t cache_limit_;
  mutable std::mutex mutex_;
  FreeList free_;
  MemoryStats stats_;
};

/// Whether backends should pool freed memory: false when HETERO_MEMORY_POOL is off (0,
/// false, off, no: for AddressSanitizer runs, where a pool would hide a use after free),
/// true otherwise (a malformed value keeps the pool; the core warns about it).
inline bool memory_pool_enabled() noexcept {
  try {
    return config::flag("HETERO_MEMORY_POOL", true);
  } catch (...) {
    return true;
  }
}

/// The cache limit of a device with `device_bytes` bytes of memory (0: unknown), in bytes:
/// HETERO_MEMORY_CACHE_LIMIT when set and well formed (a byte count, optionally with K, M
/// or G for KiB, MiB, GiB, alone or with B or iB: 512M, 512MB, 512MiB; "0" caches
/// nothing), else an eighth of the device's memory, at most 1 GiB (1 GiB when unknown): a
/// malformed value gets the default, as the core's warning about it says (issue #44).
/// Note [Cache limit].
inline std::size_t memory_cache_limit(std::size_t device_bytes) {
  constexpr std::size_t kGiB = std::size_t{1} << 30;
  if (const auto limit = config::bytes("HETERO_MEMORY_CACHE_LIMIT")) return *limit;
  return device_bytes == 0 ? kGiB : std::min(kGiB, device_bytes / 8);
}

}  // namespace hetero
