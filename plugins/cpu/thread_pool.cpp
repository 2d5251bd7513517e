// SPDX-License-Identifier: Apache-2.0
#include "thread_pool.hpp"

#include <chrono>
#include <system_error>

namespace hetero::cpu {
namespace {
thread_local ThreadPool* t_pool = nullptr;
thread_local bool t_inside = false;

// Note [Pool hand-off]: waking a thread asleep on a condition variable takes 10-40 us on a
// virtual machine (a futex wake through the hypervisor), as long as a 128^3 GEMM half or a
// 1 MiB copy half, and on a 2-core Zen 5 VM whose idle vCPUs halt, now and then a
// millisecond or more. So a worker that finished a chunk, and a caller waiting for its
// workers, first spin for up to kSpin on the atomics, and only then sleep; the next kernel
// of a sequence finds its workers awake. Each turn yields the core (sched_yield): where
// more threads want the cores than there are (two processes of a data-parallel job on two
// cores, each with its own kernel threads), a pure pause loop kept the thread that would
// set the flag off its core and made a training step 1.6x slower; with nothing else
// runnable, the yield returns at once.
// kSpin was 50 us until 2026-12-01. On that Zen 5 VM, `x.sum().item()` of 64 MiB in a loop
// spent a tenth to a quarter of its calls at 2-3x the median (p90 1.6-1.9 ms against a
// median of 0.75-0.85): between two calls the worker had gone to sleep, woke late, and its
// chunk finished long after the caller's. With 1 ms the p90 is 0.82-0.86 ms (2 ms: no
// better), the sum / sum(1) / max rows of bench_large_ops take 0.93-0.95 ms instead of
// 1.05-1.21, and the 2-process data-parallel steps of bench_distributed are no slower
// (docs/bench/large_ops.md). 1 ms is still short beside libgomp's idle spin (10-15 ms) and
// OpenBLAS's (2^28 cycles, ~80 ms), which hetero no longer uses (Note [GEMM on the kernel
// pool]): an idle device gives its cores back within a millisecond (test
// ThreadPool.IdleWorkersGiveTheirCoresBack).
constexpr std::chrono::microseconds kSpin{1000};

/// Spins until done() or kSpin has passed; returns done().
template <class F>
bool spin_until(F&& done) {
  if (done()) return true;
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    std::this_thread::yield();
    if (done()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
}
}  // namespace

ThreadPool* kernel_pool() noexcept { return t_pool; }
ScopedKernelPool::ScopedKernelPool(ThreadPool* pool) noexcept : previous_(t_pool) { t_pool = pool; }
ScopedKernelPool::~ScopedKernelPool() { t_pool = previous_; }

ThreadPool::ThreadPool(int threads) {
  try {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker(i); });
  } catch (const std::system_error&) {
    // The system refused a thread (its thread or address-space limit): the pool runs with
    // the workers that started, and size() (the device's multiprocessor_count) says so.
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_.store(true);
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::worker(int index) {
  std::uint64_t seen = 0;
  for (;;) {
    const auto ready = [&] {
      return stop_.load(std::memory_order_acquire) ||
             generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spin_until(ready)) {
      std::unique_lock lock(mutex_);
      start_.wait(lock, ready);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    const std::function<void(std::int64_t, std::int64_t)>* job = job_;
    const std::int64_t n = n_;
    const std::int64_t parts = size();
    const std::int64_t begin = n * index / parts, end = n * (index + 1) / parts;
    t_inside = true;
    if (begin < end) (*job)(begin, end);
    t_inside = false;
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mutex_);  // the caller may be between its check and its wait
      done_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(std::int64_t n,
                              const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (n <= 0) return;
  if (workers_.empty() || t_inside || n == 1) {
    fn(0, n);
    return;
  }
  std::lock_guard call(call_mutex_);
  job_ = &fn;
  n_ = n;
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    // Under the mutex, so that a worker between its check and its wait cannot miss it.
    std::lock_guard lock(mutex_);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  start_.notify_all();
  t_inside = true;
  fn(0, n / size());  // the caller's share: chunk 0
  t_inside = false;
  const auto finished = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!spin_until(finished)) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, finished);
  }
  job_ = nullptr;
}

}  // namespace hetero::cpu
