// SPDX-License-Identifier: Apache-2.0
#pragma once
// CudaCachingAllocator: the device memory pool of one CUDA device, as PyTorch's CUDA caching
// allocator and MXNet's pooled storage manager. Freed blocks are kept and handed out
// again without cudaFree/cudaMalloc.
//
// Stream safety: every block belongs to its device's stream. A block used only on that
// stream is reusable as soon as it is freed: whatever the next owner queues runs after
// the previous owner's work on the same stream. A block also used on other streams (a
// peer copy queued on another device's stream reads it) gets an event recorded on each
// of those streams when freed, and returns to the pool only once they have completed.
//
// The same pool serves pinned host memory (cudaHostAlloc, as PyTorch's caching host
// allocator): it has no stream of its own, so every device stream that may have used a
// block is fenced when it is freed.
//
// Thread-safe (one mutex). Sizes and the fit rule are the SDK pool's
// (hetero::CachingAllocator::round_size and fits: 512-byte granules, a cached block serves a
// request of at least half its size, blocks are not split); out of memory follows
// Note [Out-of-memory policy] (<hetero/sdk/memory_policy.hpp>). The SDK pool itself is not
// used here because this one fences blocks that other streams used; its free list is.
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include <hetero/device_properties.hpp>
#include <hetero/sdk/caching_allocator.hpp>

#include "fence.hpp"

namespace hetero::cuda {

class CudaCachingAllocator {
 public:
  static constexpr std::size_t kRoundBytes = hetero::CachingAllocator::kRoundBytes;

  /// A block: its pointer and rounded size in bytes (the SDK pool's Block).
  using Block = hetero::CachingAllocator::Block;

  enum class Memory { device, pinned_host };

  /// A pool of `memory` for CUDA device `device` (for pinned_host: the device current
  /// while allocating; the memory is portable to all devices).
  CudaCachingAllocator(Memory memory, int device) : memory_(memory), device_(device) {}
  /// Frees every block (waiting for pending events). Live blocks are a caller bug.
  ~CudaCachingAllocator();
  CudaCachingAllocator(const CudaCachingAllocator&) = delete;
  CudaCachingAllocator& operator=(const CudaCachingAllocator&) = delete;

  /// A block of at least `bytes` bytes (> 0) on the device, from the cache when one fits.
  /// On cudaMalloc failure frees the whole cache and retries once; then throws
  /// OutOfMemoryError naming device, requested, free, total and reserved bytes. The
  /// device stays usable.
  Block allocate(std::size_t bytes);

  /// Returns `block` to the cache. `foreign_streams` are (device, stream) pairs other than
  /// this device's stream that used the block; it is reused only after their work so far
  /// has completed. Never throws (a failure to record an event falls back to waiting).
  void free(Block block, const std::vector<StreamRef>& foreign_streams) noexcept;

  /// cudaFree for every cached block (waits for pending ones), as torch.cuda.empty_cache.
  void empty_cache();

  /// allocated / reserved / peak bytes, cudaMalloc count, pool hits.
  MemoryStats stats() const;

 private:
  struct Pending {
    Block block;
    Fence fence;
  };
  void collect_pending_locked();          // moves completed pending blocks to free_
  void release_cached_locked(bool wait);  // cudaFree of free_ (and pending if wait)
  [[noreturn]] void throw_out_of_memory_locked(std::size_t bytes);

  cudaError_t raw_allocate(void** ptr, std::size_t size) const noexcept;
  void raw_free(void* ptr) const noexcept;

  Memory memory_;
  int device_;
  mutable std::mutex mutex_;
  hetero::CachingAllocator::FreeList free_;  // the SDK pool's free list
  std::vector<Pending> pending_;
  MemoryStats stats_;
};

}  // namespace hetero::cuda
