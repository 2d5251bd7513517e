// SPDX-License-Identifier: Apache-2.0
// The cpu plugin where the system refuses threads (its thread limit, or an address-space
// limit that leaves no room for a thread's stack): the kernel pool runs with the workers
// that started, and a work queue whose worker cannot start runs its work on the caller.
// And an allocation such a limit refuses names it.
// Before, std::system_error left a constructor holding joinable threads and the process
// aborted (HETERO_CPU_THREADS=4096 under `prlimit --as=4000000000`).
//
// Each check runs in a child process (a gtest death test, re-executed: "threadsafe" style)
// whose address space is limited to what it uses plus 256 MiB, so that a few dozen 8 MiB
// thread stacks fit and the rest are refused. Not built with the sanitizers: they reserve
// terabytes of shadow memory and fail their own allocations under such a limit.
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include <hetero/error.hpp>

#include "cpu_backend.hpp"
#include "cpu_device.hpp"
#include "thread_pool.hpp"
#include "work_queue.hpp"

namespace hetero::cpu {
namespace {

// This process's address-space size (bytes), from /proc/self/status's VmSize.
std::uint64_t address_space_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  return 0;
}

// Limits this process's address space to what it uses plus `headroom` bytes.
void limit_address_space(std::uint64_t headroom) {
  const rlimit limit{address_space_bytes() + headroom, RLIM_INFINITY};
  if (limit.rlim_cur <= headroom || setrlimit(RLIMIT_AS, &limit) != 0) {
    std::fprintf(stderr, "could not limit the address space\n");
    std::_Exit(2);
  }
}

constexpr std::uint64_t kHeadroom = std::uint64_t{256} << 20;

class ThreadLimit : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(ThreadLimit, APoolRunsWithTheWorkersThatStarted) {
  EXPECT_EXIT(
      {
        limit_address_space(kHeadroom);
        ThreadPool pool(4096);
        const int size = pool.size();
        // Each index in [0, n) counted once, whatever the number of threads.
        constexpr std::int64_t n = 100000;
        auto hits = std::make_unique<std::int8_t[]>(n);
        pool.parallel_for(n, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i) ++hits[i];
        });
        std::int64_t once = 0;
        for (std::int64_t i = 0; i < n; ++i) once += hits[i] == 1;
        std::fprintf(stderr, "threads %d, indices once %lld\n", size, static_cast<long long>(once));
        std::_Exit(size >= 1 && size < 4096 && once == n ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "threads [0-9]+, indices once 100000");
}

TEST_F(ThreadLimit, AQueueWhoseWorkerCannotStartRunsItsWorkOnTheCaller) {
  EXPECT_EXIT(
      {
        limit_address_space(kHeadroom);
        ThreadPool hog(4096);  // takes what the limit leaves for thread stacks
        WorkQueue queue(nullptr, -1);
        int runs = 0;
        for (int i = 0; i < 100; ++i)
          queue.enqueue(std::make_unique<FunctionTask<std::function<void()>>>(
              std::function<void()>([&runs] { ++runs; })));
        queue.synchronize();
        const int after_sync = runs;
        queue.enqueue(std::make_unique<FunctionTask<std::function<void()>>>(
            std::function<void()>([&runs] { ++runs; })));
        queue.shutdown();
        std::fprintf(stderr, "pool %d, runs %d then %d\n", hog.size(), after_sync, runs);
        std::_Exit(after_sync == 100 && runs == 101 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "runs 100 then 101");
}

// An allocation refused by the address-space limit, with gigabytes of the machine free:
// the OutOfMemoryError names the limit beside the host's figures (before, it quoted only
// "18220883968 bytes free of 25276510208 total"), and the device stays usable.
TEST_F(ThreadLimit, AnAllocationRefusedByTheAddressSpaceLimitNamesIt) {
  EXPECT_EXIT(
      {
        CpuBackend backend;
        limit_address_space(kHeadroom);
        std::string message;
        try {
          (void)backend.allocate(0, std::size_t{1} << 30);
        } catch (const OutOfMemoryError& e) {
          message = e.what();
        }
        const bool usable = backend.allocate(0, std::size_t{1} << 20) != nullptr;
        std::fprintf(stderr, "message: %s\n", message.c_str());
        std::_Exit(usable ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "message: cpu:0: out of memory: cannot allocate 1073741824 bytes of memory; [0-9]+ bytes "
      "free of [0-9]+ total, 0 bytes reserved by hetero; the process's address-space limit "
      "\\(RLIMIT_AS\\) is [0-9]+ bytes, [0-9]+ of them mapped \\(the cache");
}

}  // namespace
}  // namespace hetero::cpu
