// SPDX-License-Identifier: Apache-2.0
// A process group whose collective times out on some ranks (issue #29 item 2), run by
// run_late_rank.cmake on 3 ranks with HETERO_DISTRIBUTED_TIMEOUT=1 as
// `distributed_late_rank MODE DIR` (DIR: an empty directory for the ranks' markers):
//   start: in both modes rank 0 (with a 30 s timeout of its own) calls init_process_group
//          2 s after the others, whose MPI start-up and set-up wait for it under the
//          start-up timeout (HETERO_DISTRIBUTED_INIT_TIMEOUT, default 300 s), not the 1 s
//          collective one (issue #48: that bound failed healthy starts under ASan).
//   late:  rank 0 joins the all_reduce only once ranks 1 and 2 have timed out (they say so
//          by a file in DIR: no test deadline races the ranks' start or the machine's load;
//          issue #48). Two asynchronous all_reduces are in flight there: the first times
//          out, the second, queued behind it, fails as the group is unusable, and neither
//          tensor is written when rank 0 completes both later (their communication threads
//          stay inside MPI until rank 0 arrives). Their tensor must not change when the
//          abandoned call completes (item 3: it used to become 3, written after the
//          error): checked once the new init_process_group has returned, which waits for
//          that call to complete. Every rank then has a new group (30 s timeout), which
//          works, and the process exits 0 with MPI finalised (it used to crash in
//          MPI_Finalize at times).
//   never: rank 0 never joins; ranks 1 and 2 time out, and a new init_process_group() on
//          them raises a DistributedError within its timeout (it hung in MPI_Comm_dup with
//          the old thread still inside MPI). They exit without MPI_Finalize, which mpirun
//          reports: the job did fail.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <hetero/distributed.hpp>
#include <hetero/hetero.hpp>

using namespace hetero;
namespace dist = hetero::distributed;

namespace {

// The marker file of `rank` in `dir`.
std::filesystem::path marker(const std::string& dir, int rank) {
  return std::filesystem::path(dir) / ("timed_out." + std::to_string(rank));
}

// Waits until every rank but 0 has written its marker (at most 300 s, then says so).
void wait_for_markers(const std::string& dir, int world) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  for (int r = 1; r < world; ++r)
    while (!std::filesystem::exists(marker(dir, r))) {
      if (std::chrono::steady_clock::now() > give_up) {
        std::printf("rank 0 of %d: rank %d never said it timed out\n", world, r);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: distributed_late_rank late|never MARKER_DIR\n");
    return 2;
  }
  const bool never = std::strcmp(argv[1], "never") == 0;
  const std::string dir = argv[2];
  // No group yet: the rank mpirun gives the process. Rank 0 starts late; its own collective
  // timeout is long (it is the late rank: only the others' 1 s is under test).
  const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
  if (r != nullptr && std::atoi(r) == 0) {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    ::setenv("HETERO_DISTRIBUTED_TIMEOUT", "30", 1);
  }
  dist::init_process_group();
  const int me = dist::rank(), world = dist::world_size();
  std::printf("rank %d of %d: started\n", me, world);
  std::fflush(stdout);
  Tensor x = full({1024}, 1.0f);
  if (me == 0) {
    if (never) {
      std::printf("rank 0 of %d: skipped the all_reduce\n", world);
      std::fflush(stdout);
      return 0;
    }
    wait_for_markers(dir, world);
  }
  // Two collectives in flight: the first times out, the second was queued behind it.
  Tensor x2 = full({16}, 1.0f);
  std::vector<float> at_error, at_error2;
  dist::Work first = dist::all_reduce(x, dist::ReduceOp::sum, dist::async_op);
  dist::Work second = dist::all_reduce(x2, dist::ReduceOp::sum, dist::async_op);
  try {
    first.wait();
    std::printf("rank %d of %d: all_reduce returned %g\n", me, world, x.to_vector<float>()[0]);
  } catch (const dist::DistributedError& e) {
    std::printf("rank %d of %d: all_reduce timed out: %s\n", me, world, e.what());
    at_error = x.to_vector<float>();
  }
  try {
    second.wait();
    std::printf("rank %d of %d: the second all_reduce returned %g\n", me, world,
                x2.to_vector<float>()[0]);
  } catch (const dist::DistributedError& e) {
    std::printf("rank %d of %d: the second all_reduce failed: %s\n", me, world, e.what());
    at_error2 = x2.to_vector<float>();
  }
  std::fflush(stdout);
  if (me != 0) std::ofstream(marker(dir, me)) << "timed out\n";
  dist::destroy_process_group();
  // Late mode: the new group's timeout is long (no test deadline races the machine); its
  // init waits for the abandoned call, which rank 0 completes.
  if (!never) ::setenv("HETERO_DISTRIBUTED_TIMEOUT", "30", 1);
  try {
    dist::init_process_group();
  } catch (const dist::DistributedError& e) {
    std::printf("rank %d of %d: new group refused: %s\n", me, world, e.what());
    std::fflush(stdout);
    return 0;
  }
  if (me != 0) {
    const bool same = x.to_vector<float>() == at_error && x2.to_vector<float>() == at_error2;
    std::printf("rank %d of %d: the tensor after the late completion: %s (x[0] = %g)\n", me, world,
                same ? "unchanged" : "WRITTEN", x.to_vector<float>()[0]);
    std::fflush(stdout);
  }
  Tensor y = full({8}, 1.0f);
  dist::all_reduce(y);
  std::printf("rank %d of %d: new group all_reduce %g\n", me, world, y.to_vector<float>()[0]);
  std::fflush(stdout);
  return 0;
}
