// SPDX-License-Identifier: Apache-2.0
#pragma once
// WorkQueue: the in-order queue behind one CPU device's stream. Work is run by the
// device's own worker thread, in submission order, so the host returns as soon as work
// is queued and two devices compute at the same time.
//
// Small work (cost <= the inline limit) submitted while the queue is idle runs on the
// calling thread instead: nothing is queued or running, so the order is the same as if it
// had been queued, and a 2x3 add does not pay a thread hand-off (microseconds) for
// nanoseconds of work. HETERO_CPU_INLINE_LIMIT=0 queues everything.
//
// Work is numbered 1, 2, ... in submission order ("tickets"); ticket t is complete when
// `completed >= t`. The first exception thrown by queued work is kept and rethrown by
// wait()/synchronize(), as a CUDA stream reports an asynchronous error at its next
// synchronisation. Thread-safe: one mutex; submitters, the worker and waiters may be on
// any threads.
//
// Note [Work that runs on the caller]: work submitted with Runs::on_caller is never queued
// while the queue runs: the submitting thread waits until the work before it has completed
// (running queued work itself while the worker is between pieces, as wait() does) and then
// runs it, as inline work. If by then work that other threads submitted since waits in the
// queue, the work is queued behind it instead (a thread that keeps the queue full must not
// hold this one back for good). Convolutions on oneDNN are submitted so (cpu_backend.cpp):
// - Debian's oneDNN runs its primitives on OpenMP, whose threads belong to the calling thread
//   (libgomp keeps a team per thread). A convolution queued for the worker was taken by the
//   host thread waiting for it about half the time, so it ran on one team or the other by a
//   race: a [256, 6, 14, 14] * [16, 6, 5, 5] forward took 1.70-1.75 ms per call, against
//   1.29-1.37 with every call on the host (a Zen 3, 2 kernel threads), its 2,400-element
//   weight reorder 65-110 us instead of 2-10 us.
// - Queued for the worker alone (7f27d83, reverted), a convolution still queued when the
//   program returned from main ran after exit() had destroyed oneDNN's objects made on first
//   use (its primitive cache, its JIT GEMM kernels, the plugin's plans), which come after the
//   list of live backends that finishes queued work (Note [Finish queued work at exit]): a
//   crash. Work on the caller is done before the caller can return.
// The cost: the host waits for a convolution as libtorch's cpu convolution makes it wait, and
// one host thread driving two cpu devices runs their convolutions one after the other.
//
// Note [Wake waiters that can proceed]: a piece of work that completes wakes the threads
// waiting on the queue only where one can proceed: its ticket is reached, it waits for room,
// or nobody is about to run the next queued piece. The worker takes the next piece itself
// under the lock it finished the last one with. Before, every completion woke every waiter,
// which found the worker already on the next piece and slept again: a host in synchronize()
// behind 700 small queued ops (an LSTM forward) was woken 700 times, about 320 context
// switches per forward through the hypervisor, and the forward took 7.4 ms against 3.9 with
// every op inline.
//
// Back-pressure: at most kMaxQueued pieces of work wait in the queue; a host thread that
// submits more blocks (running queued work itself while the worker is between pieces)
// until there is room, as a CUDA launch queue blocks the host when full. Otherwise a loop
// that submits faster than the device computes would queue without bound (a second of
// `full()` calls took 80 s to drain). Work submitted while running queued work (a release
// queued by a task) never blocks, so the queue cannot wait for itself.
//
// Note [Fair back-pressure]: threads that wait for room enter the queue in the order they
// started waiting (a turn number each), and a thread that finds others waiting waits behind
// them even when there is room. Before, every completion woke all of them and the first to
// take the mutex entered, so a thread that kept refilling the queue could hold another off
// for as long as it kept going.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "thread_pool.hpp"

namespace hetero::cpu {

class WorkQueue {
 public:
  /// One unit of queued work. run() may throw; the exception becomes the queue's error.
  class Task {
   public:
    virtual ~Task() = default;
    virtual void run() = 0;
  };

  /// `pool` (not owned, may be null) is installed as the kernel pool while work runs;
  /// work of cost <= `inline_limit` may run on the submitting thread when idle.
  WorkQueue(ThreadPool* pool, std::int64_t inline_limit)
      : pool_(pool), inline_limit_(inline_limit) {}
  /// shutdown().
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  /// Where a piece of work runs (Note [Work that runs on the caller]).
  enum class Runs : std::uint8_t {
    anywhere,   ///< queued for the worker, or inline when small and the queue idle
    on_caller,  ///< on the submitting thread, once the work before it has completed
  };

  /// Runs `run_now()` on this thread when cost <= the inline limit and the queue is idle, or
  /// (Runs::on_caller) once the work before it has completed; otherwise queues `make_task()`
  /// (a std::unique_ptr<Task>) for the worker. Runs::on_caller work submitted from queued
  /// work, or finding newer work of other threads queued once the older work is done, is
  /// queued. An exception of `run_now()` is kept as queued work's is (rethrown by the next
  /// synchronize()).
  template <class RunNow, class MakeTask>
  void submit(std::int64_t cost, RunNow&& run_now, MakeTask&& make_task,
              Runs runs = Runs::anywhere) {
    const std::uint64_t ticket = runs == Runs::on_caller ? begin_on_caller()
                                 : cost <= inline_limit_ ? begin_inline()
                                                         : 0;
    if (ticket != 0) {
      std::exception_ptr error;
      try {
        ScopedKernelPool scope(pool_);
        RunningWork running;
        run_now();
      } catch (...) {
        error = std::current_exception();
      }
      end_inline(error, ticket);
      return;
    }
    enqueue(make_task());
  }

  /// Most pieces of work waiting in the queue (not counting the one running).
  static constexpr std::size_t kMaxQueued = 1024;

  /// Queues `task` (after shutdown(): runs it now). Blocks while kMaxQueued pieces wait,
  /// unless called from queued work.
  void enqueue(std::unique_ptr<Task> task);
  /// Pieces of work waiting (not counting the one running). For tests and statistics.
  std::size_t queued() const;
  /// Threads blocked in enqueue() waiting for room (Note [Fair back-pressure]). For tests
  /// and statistics.
  std::size_t waiting_for_room() const;
  /// Whether this thread is running queued or inline work of any queue (work submitted
  /// from there must not block on a queue).
  static bool running_work() noexcept;
  /// How many times completions woke the threads waiting on this queue (Note [Wake waiters
  /// that can proceed]). For tests and statistics.
  std::uint64_t wakeups() const;
  /// The ticket of the last work submitted (0: none yet).
  std::uint64_t last_ticket() const;
  /// Whether all work submitted so far has completed (a snapshot). Never blocks.
  bool idle() const noexcept { return reached(submitted_.load(std::memory_order_acquire)); }
  /// Whether work up to `ticket` has completed. Never blocks.
  bool reached(std::uint64_t ticket) const noexcept {
    return completed_.load(std::memory_order_acquire) >= ticket;
  }
  /// Blocks until work up to `ticket` has completed; rethrows the kept error if work up
  /// to `ticket` failed (the error stays for synchronize()). While the worker has not
  /// taken the next piece of work, the waiting thread runs it itself.
  void wait(std::uint64_t ticket);
  /// Blocks until all work submitted so far has completed; rethrows and clears the kept
  /// error.
  void synchronize();
  /// Finishes the queued work and joins the worker; later work runs on the caller.
  void shutdown();

 private:
  std::uint64_t begin_inline();  // the ticket, or 0 when the queue is not idle
  // Waits until the work submitted before has completed (running it while the worker is
  // between pieces), then the ticket as begin_inline(); 0 (queue it) when this thread runs
  // queued work, or when newer work of other threads waits in the queue.
  std::uint64_t begin_on_caller();
  void end_inline(std::exception_ptr error, std::uint64_t ticket);
  std::uint64_t next_ticket_locked() noexcept;
  // Records `ticket` as completed (and `error`, the first), then wakes the waiters that can
  // proceed: all of them unless `taking_next` (the finisher runs the next queued piece
  // itself), then those whose ticket is reached and those waiting for room.
  void finish_locked(std::exception_ptr error, std::uint64_t ticket, bool taking_next = false);
  // Blocks until `ticket` completes, running queued work itself while the worker has not
  // taken it (a waiting host would otherwise sleep through the worker's wake-up).
  void wait_locked(std::unique_lock<std::mutex>& lock, std::uint64_t ticket);
  // Runs the first queued task with the lock released (busy_ set), then records it.
  // `by_worker`: the worker thread, which takes the next piece itself (Note [Wake waiters
  // that can proceed]).
  void run_front_locked(std::unique_lock<std::mutex>& lock, bool by_worker = false);
  void worker();
  // Blocks until this thread's turn has come and fewer than kMaxQueued pieces wait (or the
  // queue stopped), then passes the turn on (Note [Fair back-pressure]).
  void wait_for_room_locked(std::unique_lock<std::mutex>& lock);
  // Marks this thread as running work for its scope (running_work()).
  struct RunningWork {
    RunningWork() noexcept;
    ~RunningWork();
    RunningWork(const RunningWork&) = delete;
    RunningWork& operator=(const RunningWork&) = delete;
  };

  ThreadPool* pool_;
  const std::int64_t inline_limit_;
  mutable std::mutex mutex_;
  std::condition_variable work_cv_;  // the worker waits for work
  std::condition_variable done_cv_;  // waiters wait for completions
  std::deque<std::pair<std::uint64_t, std::unique_ptr<Task>>> queue_;
  std::thread worker_;
  std::atomic<std::uint64_t> submitted_{
      0};  // written under mutex_; read without it by synchronize()'s fast path
  std::atomic<std::uint64_t> completed_{0};
  int waiters_ = 0;
  int room_waiters_ = 0;  // of waiters_, those in wait_for_room_locked
  // The tickets that waiters in wait_locked (and shutdown, 0) wait for: few, usually one.
  std::vector<std::uint64_t> waited_tickets_;
  std::uint64_t wakeups_ = 0;
  // Turns of the threads waiting for room: the next to hand out, the one served now.
  std::uint64_t room_next_turn_ = 0, room_turn_ = 0;
  bool busy_ = false;  // work is running (worker or inline)
  bool stopped_ = false;
  std::exception_ptr error_;
  std::uint64_t error_ticket_ = 0;
  std::atomic<bool> has_error_{false};  // error_ != nullptr, for the fast path
};

}  // namespace hetero::cpu
