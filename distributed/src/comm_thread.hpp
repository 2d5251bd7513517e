// SPDX-License-Identifier: Apache-2.0
#pragma once
// CommThread: the thread that makes a process group's MPI calls, so that the caller can
// stop waiting for one after the group's timeout (Note [Timeouts on a blocking MPI]).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace hetero::distributed::detail {

// Note [Timeouts on a blocking MPI]
// Open MPI 4 has no way to interrupt a blocking collective, and its non-blocking ones
// (MPI_Iallreduce + MPI_Test) run at about 0.5-0.8x the blocking ones' bandwidth. So each
// collective is a blocking call made on the group's communication thread while the
// caller waits on a condition variable with a deadline. When the deadline passes, the
// caller throws DistributedError and the thread is left inside MPI for good: the group
// is marked unusable (no MPI call is made again, not even MPI_Finalize), and the task,
// which holds handles to the tensors MPI may still write into, is never destroyed.
// A hand-over through a condition variable costs a wake-up on each side (about 10 us on
// a busy 2-core machine, 0.1x of a 1 MiB all_reduce), so each side first spins briefly
// (yielding) before it sleeps: back-to-back collectives then cost no wake-up at all.
class CommThread {
 public:
  CommThread();
  // Stops and joins the thread when idle. Must not be called while it is stuck (see
  // abandon()).
  ~CommThread();
  CommThread(const CommThread&) = delete;
  CommThread& operator=(const CommThread&) = delete;

  // Runs `task` on the thread and returns its result (an MPI return code), or nullopt
  // when it has not returned within `timeout`; the thread then stays in it.
  std::optional<int> run(std::function<int()> task, std::chrono::duration<double> timeout);

  // Lets a thread stuck in a task go: it is detached, and this object must be leaked
  // (the thread still refers to it); it is remembered for any_abandoned_inside_mpi().
  void abandon() noexcept;

  // Whether a thread abandoned by a timeout is still inside its task (an MPI call): then
  // MPI_Finalize must not run (issue #29: finalising under it crashed at exit, also after
  // a new process group had been made). A late peer may yet complete the call; once it
  // has, the thread idles outside MPI and finalising is safe. Thread-safe.
  static bool any_abandoned_inside_mpi() noexcept;

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::function<int()> task_;
  std::atomic<bool> posted_{false}, done_{false};  // set under mutex_, read while spinning
  bool stop_ = false;
  int result_ = 0;
  std::thread thread_;
};

}  // namespace hetero::distributed::detail
