// SPDX-License-Identifier: Apache-2.0
#pragma once
// CommThread: the thread that makes a process group's MPI calls, in the order they are
// posted, so that the caller can stop waiting for one after the group's timeout (Note
// [Timeouts on a blocking MPI]) or go on computing while it runs (asynchronous collectives).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

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
// Tasks run one at a time in the order posted: asynchronous collectives (Work) queue
// behind each other exactly as the blocking ones would have run, so every rank's MPI calls
// keep the order of its collective calls.
class CommThread {
 public:
  // One posted task: its MPI return code once `done`.
  struct Job {
    std::function<int()> task;
    std::atomic<bool> done{false};
    int result = 0;  // written before `done` is set
  };

  CommThread();
  // Stops and joins the thread once its queue is empty. Must not be called while it is
  // stuck (see abandon()).
  ~CommThread();
  CommThread(const CommThread&) = delete;
  CommThread& operator=(const CommThread&) = delete;

  // Queues `task` (MPI calls) to run after those posted before it; returns its job.
  std::shared_ptr<Job> post(std::function<int()> task);
  // Waits until `job` is done or `deadline` passes: its result, or nullopt (the job, and
  // the thread, stay in MPI). time_point::max(): no deadline.
  std::optional<int> wait(const Job& job, std::chrono::steady_clock::time_point deadline);
  // post() then wait() with a deadline `timeout` from now (>= 1e9 s, inf: none).
  std::optional<int> run(std::function<int()> task, std::chrono::duration<double> timeout);
  // Whether every posted job is done (thread-safe).
  bool idle() const noexcept { return pending_.load(std::memory_order_acquire) == 0; }

  // Lets a thread stuck in a task go: it is detached, and this object must be leaked
  // (the thread still refers to it); it is remembered for any_abandoned_inside_mpi().
  void abandon() noexcept;
  // abandon(), then `owner` gives up its reference without destroying the object (one
  // reference is leaked): for the handle a process group holds.
  static void abandon(std::shared_ptr<CommThread>& owner) noexcept;
  // Whether abandon() was called: process groups sharing this thread are then unusable.
  bool abandoned() const noexcept { return abandoned_.load(std::memory_order_acquire); }

  // Whether a thread abandoned by a timeout is still inside its tasks (MPI calls): then
  // MPI_Finalize must not run (issue #29: finalising under it crashed at exit, also after
  // a new process group had been made). A late peer may yet complete the call; once it
  // has, the thread idles outside MPI and finalising is safe. Thread-safe.
  static bool any_abandoned_inside_mpi() noexcept;

  // The deadline `timeout` from now; time_point::max() from 1e9 s (31 years; inf) on,
  // where the steady_clock time point would overflow (issue #29: HETERO_DISTRIBUTED_TIMEOUT=inf
  // made every collective time out at once).
  static std::chrono::steady_clock::time_point deadline_after(
      std::chrono::duration<double> timeout) noexcept;

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::deque<std::shared_ptr<Job>> queue_;
  // Jobs the thread has finished, released by the next post() on the caller's side: a
  // task's captured tensors are never destroyed on the communication thread.
  std::vector<std::shared_ptr<Job>> finished_jobs_;
  std::atomic<int> pending_{0};  // posted and not done; read while spinning
  std::atomic<bool> abandoned_{false};
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace hetero::distributed::detail
