// SPDX-License-Identifier: Apache-2.0
#include "thread_pool.hpp"

namespace hetero::cpu {
namespace {
thread_local ThreadPool* t_pool = nullptr;
thread_local bool t_inside = false;
}  // namespace

ThreadPool* kernel_pool() noexcept { return t_pool; }
ScopedKernelPool::ScopedKernelPool(ThreadPool* pool) noexcept : previous_(t_pool) { t_pool = pool; }
ScopedKernelPool::~ScopedKernelPool() { t_pool = previous_; }

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::worker(int index) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(std::int64_t, std::int64_t)>* job;
    std::int64_t n;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      n = n_;
    }
    const std::int64_t parts = size();
    const std::int64_t begin = n * index / parts, end = n * (index + 1) / parts;
    t_inside = true;
    if (begin < end) (*job)(begin, end);
    t_inside = false;
    {
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
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
  {
    std::lock_guard lock(mutex_);
    job_ = &fn;
    n_ = n;
    pending_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  start_.notify_all();
  t_inside = true;
  fn(0, n / size());  // the caller's share: chunk 0
  t_inside = false;
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
}

}  // namespace hetero::cpu
