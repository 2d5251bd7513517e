// SPDX-License-Identifier: Apache-2.0
// A process group loses a rank: rank 1 is killed (SIGKILL) after a first all_reduce, and
// every other rank must get a DistributedError from its next collective within the
// group's timeout (HETERO_DISTRIBUTED_TIMEOUT), not hang, and an immediate one after.
// Run by run_peer_failure.cmake under `mpirun --enable-recovery` (without it, mpirun
// ends the whole job when a rank dies, which is also not a hang).
// `peer_failure before_init`: rank 1 is killed before init_process_group, and the others'
// init_process_group must throw DistributedError within the timeout (issue #29 item 8: it
// hung forever in MPI_Init_thread), and the process then exit.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <hetero/distributed.hpp>
#include <hetero/hetero.hpp>

using namespace hetero;
namespace dist = hetero::distributed;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int dead_before_init() {
  // No group yet: the rank and size mpirun gives the process.
  const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
  const int me = r ? std::atoi(r) : 0, world = n ? std::atoi(n) : 1;
  if (me == 1) std::raise(SIGKILL);
  const auto start = std::chrono::steady_clock::now();
  try {
    dist::init_process_group();
    std::printf("rank %d of %d: init_process_group without rank 1 returned\n", me, world);
    return 1;
  } catch (const dist::DistributedError& e) {
    std::printf("rank %d of %d caught DistributedError after %.1f s: rank %d of %d: %s\n", me,
                world, seconds_since(start), me, world, e.what());
  }
  try {
    dist::init_process_group();
    std::printf("rank %d of %d then: init_process_group returned\n", me, world);
    return 1;
  } catch (const dist::DistributedError& e) {
    std::printf("rank %d of %d then: rank %d of %d: init again: %s\n", me, world, me, world,
                e.what());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "before_init") == 0) return dead_before_init();
  dist::init_process_group();
  const int me = dist::rank(), world = dist::world_size();
  Tensor x = ones({4096});
  dist::all_reduce(x);
  if (x.to_vector<float>()[0] != static_cast<float>(world)) return 1;
  dist::barrier();
  if (me == 1) std::raise(SIGKILL);

  // Issue #50 item 1: an asynchronous all_reduce polled with is_completed() (torch's overlap
  // loop) must complete, failed, once its deadline passes, and so must the Work queued
  // behind it; wait() then throws. (is_completed() never applied the timeout: the loop hung.)
  const auto start = std::chrono::steady_clock::now();
  dist::Work first = dist::all_reduce(x, dist::ReduceOp::sum, dist::async_op);
  Tensor y = ones({16});
  dist::Work queued = dist::all_reduce(y, dist::ReduceOp::sum, dist::async_op);
  while (!first.is_completed()) {
    if (seconds_since(start) > 120) {
      std::printf("rank %d of %d: is_completed() still false after 120 s\n", me, world);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  try {
    first.wait();
    std::printf("rank %d of %d: all_reduce without rank 1 returned\n", me, world);
    return 1;
  } catch (const dist::DistributedError& e) {
    std::printf("rank %d of %d caught DistributedError after %.1f s: %s\n", me, world,
                seconds_since(start), e.what());
  }
  if (!queued.is_completed()) {
    std::printf("rank %d of %d: the Work queued behind the failed one is not completed\n", me,
                world);
    return 1;
  }
  try {
    queued.wait();
    std::printf("rank %d of %d: the queued all_reduce returned\n", me, world);
    return 1;
  } catch (const dist::DistributedError& e) {
    std::printf("rank %d of %d queued: %s\n", me, world, e.what());
  }
  try {
    dist::barrier();
    std::printf("rank %d of %d: barrier on the failed group returned\n", me, world);
    return 1;
  } catch (const dist::DistributedError& e) {
    std::printf("rank %d of %d then: %s\n", me, world, e.what());
  }
  std::fflush(stdout);
  return 0;
}
