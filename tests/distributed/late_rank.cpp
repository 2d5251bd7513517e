// SPDX-License-Identifier: Apache-2.0
// A process group whose collective times out on some ranks (issue #29 item 2), run by
// run_late_rank.cmake on 3 ranks with HETERO_DISTRIBUTED_TIMEOUT=1:
//   late:  rank 0 joins the all_reduce 2.5 s late; ranks 1 and 2 have timed out by then
//          (two asynchronous all_reduces in flight: the first times out, the second,
//          queued behind it, fails as the group is unusable, and neither tensor is written
//          when rank 0 completes both later)
//          (their communication threads stay inside MPI until rank 0 arrives). Their tensor
//          must not change when the abandoned call completes (item 3: it used to become 3,
//          written after the error). Every rank then destroys its group and makes a new one,
//          which works, and the process exits 0 with MPI finalised (it used to crash in
//          MPI_Finalize at times).
//   never: rank 0 never joins; ranks 1 and 2 time out, and a new init_process_group() on
//          them raises a DistributedError within its timeout (it hung in MPI_Comm_dup with
//          the old thread still inside MPI). They exit without MPI_Finalize, which mpirun
//          reports: the job did fail.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <hetero/distributed.hpp>
#include <hetero/hetero.hpp>

using namespace hetero;
namespace dist = hetero::distributed;

int main(int argc, char** argv) {
  const bool never = argc > 1 && std::strcmp(argv[1], "never") == 0;
  dist::init_process_group();
  const int me = dist::rank(), world = dist::world_size();
  Tensor x = full({1024}, 1.0f);
  if (me == 0) {
    if (never) {
      std::printf("rank 0 of %d: skipped the all_reduce\n", world);
      std::fflush(stdout);
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
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
  // Late mode: rank 0 arrives at 2.5 s and completes the call the others gave up on.
  if (me != 0 && !never) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3000));
    const bool same = x.to_vector<float>() == at_error && x2.to_vector<float>() == at_error2;
    std::printf("rank %d of %d: the tensor after the late completion: %s (x[0] = %g)\n", me, world,
                same ? "unchanged" : "WRITTEN", x.to_vector<float>()[0]);
    std::fflush(stdout);
  }
  dist::destroy_process_group();
  // The new group's set-up waits for every rank under its deadline (item 8): in late mode
  // ranks 1 and 2 arrive 1.5 s after rank 0, so it gets more than the 1 s of the first.
  if (!never) {
    if (me == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ::setenv("HETERO_DISTRIBUTED_TIMEOUT", "30", 1);
  }
  try {
    dist::init_process_group();
  } catch (const dist::DistributedError& e) {
    std::printf("rank %d of %d: new group refused: %s\n", me, world, e.what());
    std::fflush(stdout);
    return 0;
  }
  Tensor y = full({8}, 1.0f);
  dist::all_reduce(y);
  std::printf("rank %d of %d: new group all_reduce %g\n", me, world, y.to_vector<float>()[0]);
  std::fflush(stdout);
  return 0;
}
