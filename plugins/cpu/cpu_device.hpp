#pragma once
// CpuDevice: the state of one virtual CPU device: its kernel thread pool, its work queue
// (behind its stream) and its memory pool. Shared by the backend, the device's buffers
// and events (std::shared_ptr), so that a buffer freed after the backend is destroyed
// still finds its pool; the core keeps the plugin loaded until then (Note [Plugin
// lifetime]).
#include <cstdint>
#include <memory>

#include <hetero/sdk/caching_allocator.hpp>

#include "cpu_stream.hpp"
#include "thread_pool.hpp"
#include "work_queue.hpp"

namespace hetero::cpu {

class CpuDevice : public std::enable_shared_from_this<CpuDevice> {
 public:
  /// `threads`: kernel threads of this device (>= 1); `inline_limit`: see WorkQueue;
  /// `pooling`: cache freed blocks (HETERO_MEMORY_POOL).
  CpuDevice(int index, int threads, std::int64_t inline_limit, bool pooling);
  CpuDevice(const CpuDevice&) = delete;
  CpuDevice& operator=(const CpuDevice&) = delete;

  int index() const noexcept { return index_; }
  int threads() const noexcept { return pool_->size(); }
  WorkQueue& queue() noexcept { return queue_; }
  CachingAllocator& memory() noexcept { return memory_; }
  CpuStream& stream() noexcept { return stream_; }

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
  int index_;
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
