// SPDX-License-Identifier: Apache-2.0
#include "cuda_caching_allocator.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include <hetero/error.hpp>
#include <hetero/sdk/memory_policy.hpp>

#include "cuda_check.hpp"
#include "scoped_device.hpp"

namespace hetero::cuda {

using SdkPool = hetero::CachingAllocator;

CudaCachingAllocator::~CudaCachingAllocator() {
  try {
    std::lock_guard lock(mutex_);
    release_cached_locked(/*wait=*/true);
  } catch (...) {
    // The device is lost: its memory goes with the context.
  }
}

CudaCachingAllocator::Block CudaCachingAllocator::allocate(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  if (bytes > std::numeric_limits<std::size_t>::max() - kRoundBytes)
    throw_out_of_memory_locked(bytes);
  const std::size_t size = SdkPool::round_size(bytes);
  collect_pending_locked();
  if (Block b = free_.take(size)) {
    ++stats_.pool_hits;
    stats_.allocated += b.size;
    stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
    return b;
  }
  ScopedDevice guard(device_);
  void* ptr = nullptr;
  auto try_allocate = [&] {
    const cudaError_t e = raw_allocate(&ptr, size);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: the device stays usable
      return false;
    }
    HETERO_CUDA_CHECK(e);
    return true;
  };
  // Note [Out-of-memory policy]: release_cached_locked waits for pending blocks first.
  if (!allocate_with_retry(try_allocate, [&] { release_cached_locked(/*wait=*/true); }))
    throw_out_of_memory_locked(bytes);
  ++stats_.allocation_count;
  stats_.reserved += size;
  stats_.allocated += size;
  stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  return Block{ptr, size};
}

void CudaCachingAllocator::free(Block block,
                                const std::vector<StreamRef>& foreign_streams) noexcept {
  if (!block.ptr) return;
  Fence fence = Fence::record(foreign_streams);
  std::lock_guard lock(mutex_);
  stats_.allocated -= block.size;
  if (fence.empty())
    free_.put(block);
  else
    pending_.push_back(Pending{block, std::move(fence)});
}

void CudaCachingAllocator::collect_pending_locked() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->fence.done()) {
      free_.put(it->block);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

void CudaCachingAllocator::release_cached_locked(bool wait) {
  if (wait) {
    for (auto& p : pending_) {
      p.fence.wait();
      free_.put(p.block);
    }
    pending_.clear();
  }
  if (free_.bytes() == 0) return;
  ScopedDevice guard(device_);
  free_.for_each([&](Block b) {
    raw_free(b.ptr);  // cudaFree/cudaFreeHost wait for the device work that might use it
    stats_.reserved -= b.size;
  });
  (void)cudaGetLastError();
  free_.clear();
}

void CudaCachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  release_cached_locked(/*wait=*/true);
}

void CudaCachingAllocator::throw_out_of_memory_locked(std::size_t bytes) {
  ScopedDevice guard(device_);
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) (void)cudaGetLastError();
  throw out_of_memory_error(
      {memory_ == Memory::device ? "cuda:" + std::to_string(device_) : "pinned host memory", bytes,
       free_bytes, total_bytes, stats_.reserved});
}

cudaError_t CudaCachingAllocator::raw_allocate(void** ptr, std::size_t size) const noexcept {
  if (memory_ == Memory::device) return cudaMalloc(ptr, size);
  return cudaHostAlloc(ptr, size, cudaHostAllocPortable);
}

void CudaCachingAllocator::raw_free(void* ptr) const noexcept {
  if (memory_ == Memory::device)
    (void)cudaFree(ptr);
  else
    (void)cudaFreeHost(ptr);
}

MemoryStats CudaCachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace hetero::cuda
