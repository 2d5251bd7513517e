// SPDX-License-Identifier: Apache-2.0
#pragma once
// CpuDevice: the state of one virtual CPU device: its kernel thread pool, its work queue
// (behind its stream) and its memory pool. Shared by the backend, the device's buffers
// and events (std::shared_ptr), so that a buffer freed after the backend is destroyed
// still finds its pool; the core keeps the plugin loaded until then (Note [Plugin
// lifetime]).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include <hetero/sdk/caching_allocator.hpp>

#include "cpu_stream.hpp"
#include "host_memory.hpp"
#include "thread_pool.hpp"
#include "work_queue.hpp"

namespace hetero::cpu {

class CpuDevice : public std::enable_shared_from_this<CpuDevice> {
 public:
  /// Bytes of releases queued behind the device's work past which a host thread that
  /// releases memory waits for that work (Note [Queued releases]).
  static constexpr std::size_t kReleaseBacklog = std::size_t{64} << 20;

  /// `threads`: kernel threads of this device (>= 1); `inline_limit`: see WorkQueue;
  /// `pooling`: cache freed blocks (HETERO_MEMORY_POOL); `cache_limit`: bytes cached at
  /// most (Note [Cache limit], caching_allocator.hpp).
  CpuDevice(int index, int threads, std::int64_t inline_limit, bool pooling,
            std::size_t cache_limit);
  CpuDevice(const CpuDevice&) = delete;
  CpuDevice& operator=(const CpuDevice&) = delete;

  int index() const noexcept { return index_; }
  int threads() const noexcept { return pool_->size(); }
  WorkQueue& queue() noexcept { return queue_; }
  CachingAllocator& memory() noexcept { return memory_; }
  CpuStream& stream() noexcept { return stream_; }
  /// The pool's statistics, with the releases still queued counted as reserved.
  MemoryStats memory_stats() const;

  /// Queues fn() after the work queued so far; runs it at once on this thread when
  /// `cost` (elements) is at most the inline limit and the queue is idle.
  template <class F>
  void run_sized(std::int64_t cost, F fn);
  /// run_sized(0, fn): releasing memory and other bookkeeping in stream order.
  template <class F>
  void run_in_order(F fn) {
    run_sized(0, std::move(fn));
  }

 private:
  // Destroyed in reverse: the cache releases through the queue, the queue drains and
  // joins its worker, then the pool joins its threads.
  // Note [Queued releases]: a block the pool gives back is freed in stream order, behind
  // the work that may still use it; until then it is still the process's memory, so
  // memory_stats() counts it as reserved. When more than kReleaseBacklog bytes wait, the
  // releasing host thread waits for the queue, so that a host loop outrunning the device
  // cannot pile up freed-but-held memory without bound.
  void release(void* ptr, std::size_t bytes) noexcept;

  int index_;
  HostMemory host_;
  std::atomic<std::size_t> queued_release_bytes_{0};
  std::unique_ptr<ThreadPool> pool_;
  WorkQueue queue_;
  CachingAllocator memory_;
  CpuStream stream_;
};

/// A queued task that calls a function object.
template <class F>
class FunctionTask final : public WorkQueue::Task {
 public:
  explicit FunctionTask(F fn) : fn_(std::move(fn)) {}
  void run() override { fn_(); }

 private:
  F fn_;
};

template <class F>
void CpuDevice::run_sized(std::int64_t cost, F fn) {
  queue_.submit(cost, fn, [&] { return std::make_unique<FunctionTask<F>>(std::move(fn)); });
}

}  // namespace hetero::cpu
