// SPDX-License-Identifier: Apache-2.0
#pragma once
// ThreadPool: the worker threads one CPU device uses to split one kernel over cores.
// Owned by the backend and joined in its destructor, so no thread runs plugin code after
// the plugin is unloaded (OpenMP's pool cannot promise that: libgomp is not safe to
// dlclose while its workers idle).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hetero::cpu {

class ThreadPool {
 public:
  /// Starts `threads - 1` workers (the caller is the last one); fewer where the system
  /// refuses a thread (size() counts those that started).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Runs fn(begin, end) over [0, n) split in contiguous chunks, one per thread, and
  /// returns when all are done. Calls from several threads are serialised; a call from
  /// inside a running parallel_for runs serially. Handing work over spins for up to
  /// kSpin (1 ms, yielding the core each turn) before sleeping, so an idle pool's workers
  /// use no CPU a millisecond after its last call (Note [Pool hand-off]).
  void parallel_for(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& fn);
  int size() const noexcept { return static_cast<int>(workers_.size()) + 1; }

 private:
  void worker(int index);

  std::mutex call_mutex_;  // one parallel_for at a time
  std::mutex mutex_;       // guards sleeping on start_/done_ (the atomics are read without it)
  std::condition_variable start_, done_;
  std::vector<std::thread> workers_;
  // Written by parallel_for before generation_ is published (release), read after it.
  const std::function<void(std::int64_t, std::int64_t)>* job_ = nullptr;
  std::int64_t n_ = 0;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

/// The pool the kernels running on this thread use (nullptr: run serially). Each CPU
/// device has its own pool; its work queue installs it while running that device's work.
ThreadPool* kernel_pool() noexcept;

/// The threads a kernel on this thread splits its work over: kernel_pool()'s size, or 1
/// without a pool.
inline int kernel_threads() noexcept {
  const ThreadPool* pool = kernel_pool();
  return pool ? pool->size() : 1;
}

/// Runs fn(begin, end) over contiguous ranges of [0, n), one per kernel thread of this
/// thread's pool (kernel_pool()), or fn(0, n) here when there is no pool or n <= 1. The
/// kernels' one way of splitting work by items (channels, planes, chunks).
template <class F>
void parallel_ranges(std::int64_t n, F&& fn) {
  if (ThreadPool* pool = kernel_pool(); pool && n > 1)
    pool->parallel_for(n, fn);
  else
    fn(0, n);
}

/// Runs fn(i) for each i in [0, n), split as parallel_ranges.
template <class F>
void parallel_each(std::int64_t n, F&& fn) {
  parallel_ranges(n, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) fn(i);
  });
}

/// Installs `pool` as this thread's kernel pool for the scope's lifetime.
class ScopedKernelPool {
 public:
  explicit ScopedKernelPool(ThreadPool* pool) noexcept;
  ~ScopedKernelPool();
  ScopedKernelPool(const ScopedKernelPool&) = delete;
  ScopedKernelPool& operator=(const ScopedKernelPool&) = delete;

 private:
  ThreadPool* previous_;
};

}  // namespace hetero::cpu
