// SPDX-License-Identifier: Apache-2.0
// A process group loses a rank: rank 1 is killed (SIGKILL) after a first all_reduce, and
// every other rank must get a DistributedError from its next collective within the
// group's timeout (HETERO_DISTRIBUTED_TIMEOUT), not hang, and an immediate one after.
// Run by run_peer_failure.cmake under `mpirun --enable-recovery` (without it, mpirun
// ends the whole job when a rank dies, which is also not a hang).
#include <chrono>
#include <csignal>
#include <cstdio>

#include <hetero/distributed.hpp>
#include <hetero/hetero.hpp>

using namespace hetero;
namespace dist = hetero::distributed;

int main() {
  dist::init_process_group();
  const int me = dist::rank(), world = dist::world_size();
  Tensor x = ones({4096});
  dist::all_reduce(x);
  if (x.to_vector<float>()[0] != static_cast<float>(world)) return 1;
  dist::barrier();
  if (me == 1) std::raise(SIGKILL);

  const auto start = std::chrono::steady_clock::now();
  try {
    dist::all_reduce(x);
    std::printf("rank %d of %d: all_reduce without rank 1 returned\n", me, world);
    return 1;
  } catch (const dist::DistributedError& e) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("rank %d of %d caught DistributedError after %.1f s: %s\n", me, world, s, e.what());
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
