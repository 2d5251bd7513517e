// SPDX-License-Identifier: Apache-2.0
// The cpu backend's default kernel threads are the cores the process may run on (its
// affinity mask, as libgomp's and so torch's default), not the host's hardware threads.
// Before, under `taskset -c 0` on a 2-core machine each device still started 2 kernel
// threads, which then took turns on the one core (and DistributedDataParallel's
// Overlap::automatic, which reads the mask, saw an oversubscribed device).
//
// Each check runs in a child process (a gtest death test, re-executed: "threadsafe" style)
// whose affinity mask it narrows before it makes a backend.
#include <sched.h>

#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include <hetero/host_cores.hpp>

#include "cpu_backend.hpp"

namespace hetero::cpu {
namespace {

// Narrows this process's affinity mask to the first CPU of its current one; false if it
// cannot.
bool pin_to_one_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return false;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(c, &one);
      return sched_setaffinity(0, sizeof one, &one) == 0;
    }
  return false;
}

// In a death test's child: with HETERO_CPU_THREADS set to `threads` (unset: nullptr) and
// the process pinned to one CPU, makes a cpu backend, prints "kernel threads N" for its
// device and exits 0 when N is `want` (1 otherwise, 2 when it cannot pin).
[[noreturn]] void exit_with_kernel_threads_pinned(const char* threads, int want) {
  if (threads)
    setenv("HETERO_CPU_THREADS", threads, 1);
  else
    unsetenv("HETERO_CPU_THREADS");
  unsetenv("HETERO_CPU_DEVICES");
  if (!pin_to_one_cpu()) std::_Exit(2);
  CpuBackend backend;
  const int got = backend.device_properties(0).multiprocessor_count;
  std::fprintf(stderr, "kernel threads %d\n", got);
  std::_Exit(got == want ? 0 : 1);
}

class Affinity : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(Affinity, UsableCoresIsTheMasksCount) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(usable_cores(), CPU_COUNT(&set));
  EXPECT_EXIT(
      {
        const bool pinned = pin_to_one_cpu();
        std::fprintf(stderr, "pinned %d, usable cores %d\n", pinned, usable_cores());
        std::_Exit(pinned && usable_cores() == 1 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "pinned 1, usable cores 1");
}

TEST_F(Affinity, DefaultKernelThreadsAreTheCoresInTheMask) {
  EXPECT_EXIT(exit_with_kernel_threads_pinned(nullptr, 1), ::testing::ExitedWithCode(0),
              "kernel threads 1");
}

// An explicit HETERO_CPU_THREADS is the user's choice, mask or not.
TEST_F(Affinity, HeteroCpuThreadsOverridesTheMask) {
  EXPECT_EXIT(exit_with_kernel_threads_pinned("3", 3), ::testing::ExitedWithCode(0),
              "kernel threads 3");
}

}  // namespace
}  // namespace hetero::cpu
