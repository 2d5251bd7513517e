// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file host_cores.hpp
/// How many of the host's cores this process may run on.
#include <algorithm>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace hetero {

/// The cores this process may run on: the CPUs in the calling thread's affinity mask
/// (sched_getaffinity; `taskset`, `numactl --physcpubind`, `docker --cpuset-cpus` and
/// Slurm's binding set it), else std::thread::hardware_concurrency(); at least 1. This is
/// the default of libgomp's OMP_NUM_THREADS, and so of torch.get_num_threads(). A CPU quota
/// (cgroup `cpu.max`, `docker --cpus`) is not a mask and is not counted, as in both.
/// Reads the mask on each call (a system call, about a microsecond); never throws;
/// thread-safe.
inline int usable_cores() noexcept {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace hetero
