// SPDX-License-Identifier: Apache-2.0
// The cpu plugin's ThreadPool on its own (compiled from the plugin's sources): every chunk
// runs once, and an idle pool gives its cores back after a bounded spin (Note [Pool
// hand-off]; issue #49 item 2: a library beside hetero keeps its cores).
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "thread_pool.hpp"

namespace hetero::cpu {
namespace {

// CPU seconds the thread of `clock` (pthread_getcpuclockid) has used.
double cpu_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

TEST(ThreadPool, EveryIndexRunsOnceInContiguousChunks) {
  ThreadPool pool(2);
  for (std::int64_t n : {1, 2, 3, 1000, 100003}) {
    std::vector<std::atomic<int>> seen(static_cast<std::size_t>(n));
    pool.parallel_for(n, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) seen[static_cast<std::size_t>(i)]++;
    });
    for (std::int64_t i = 0; i < n; ++i)
      ASSERT_EQ(seen[static_cast<std::size_t>(i)].load(), 1) << i;
  }
}

// After a burst of calls the workers spin for at most a millisecond, then sleep: over the
// next 300 ms they use almost no CPU. Each worker's own CPU clock is read (the process's
// would also count OpenBLAS's threads, which spin for a while after the library loads). A
// worker that spun without bound would use the 300 ms of a core (or, on a loaded machine,
// whatever share of it the scheduler gave): the bound of 20 ms per worker leaves room for a
// slow machine, not for a spinning thread.
TEST(ThreadPool, IdleWorkersGiveTheirCoresBack) {
  ThreadPool pool(3);
  ASSERT_GE(pool.size(), 2) << "the system refused every worker thread";
  const auto parts = static_cast<std::size_t>(pool.size());
  std::vector<clockid_t> clocks(parts, CLOCK_THREAD_CPUTIME_ID);
  std::atomic<std::int64_t> sum{0};
  constexpr std::int64_t n = 1 << 12;
  for (int call = 0; call < 200; ++call)
    pool.parallel_for(n, [&](std::int64_t begin, std::int64_t end) {
      // Chunk k, [n * k / size, n * (k + 1) / size), runs on thread k (the caller's: 0).
      std::size_t k = 0;
      while (n * static_cast<std::int64_t>(k) / pool.size() != begin) ++k;
      ASSERT_EQ(pthread_getcpuclockid(pthread_self(), &clocks[k]), 0);
      std::int64_t s = 0;
      for (std::int64_t i = begin; i < end; ++i) s += i;
      sum += s;
    });
  EXPECT_EQ(sum.load(), 200 * (n * (n - 1) / 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past the spin
  std::vector<double> before;
  for (std::size_t k = 1; k < parts; ++k) before.push_back(cpu_seconds(clocks[k]));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (std::size_t k = 1; k < parts; ++k) {
    const double used = cpu_seconds(clocks[k]) - before[k - 1];
    EXPECT_LT(used, 0.020) << "worker " << k << " used " << used * 1e3
                           << " ms of CPU in 300 ms with nothing to do";
  }
}

}  // namespace
}  // namespace hetero::cpu
