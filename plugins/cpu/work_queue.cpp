// SPDX-License-Identifier: Apache-2.0
#include "work_queue.hpp"

#include <algorithm>

#include <system_error>
#include <utility>

namespace hetero::cpu {
namespace {
thread_local int t_running_work = 0;  // depth of RunningWork scopes on this thread
}  // namespace

WorkQueue::RunningWork::RunningWork() noexcept { ++t_running_work; }
WorkQueue::RunningWork::~RunningWork() { --t_running_work; }
bool WorkQueue::running_work() noexcept { return t_running_work > 0; }

WorkQueue::~WorkQueue() { shutdown(); }

std::uint64_t WorkQueue::begin_inline() {
  std::lock_guard lock(mutex_);
  if (busy_ || !queue_.empty()) return 0;
  busy_ = true;
  return next_ticket_locked();
}

std::uint64_t WorkQueue::begin_on_caller() {
  if (running_work()) return 0;  // queued work cannot wait for its own queue
  std::unique_lock lock(mutex_);
  wait_locked(lock, submitted_.load(std::memory_order_relaxed));  // the work before this
  // Work that other threads submitted since runs or waits: queue behind it rather than wait
  // for a queue that they may keep busy (the worker takes the next piece under the lock it
  // finished the last one with, so `busy_` alone may never be seen false).
  if (busy_ || !queue_.empty()) return 0;
  busy_ = true;
  return next_ticket_locked();
}

void WorkQueue::end_inline(std::exception_ptr error, std::uint64_t ticket) {
  std::lock_guard lock(mutex_);
  busy_ = false;
  finish_locked(std::move(error), ticket);
  if (!queue_.empty()) work_cv_.notify_one();  // queued while this ran
}

std::uint64_t WorkQueue::next_ticket_locked() noexcept {
  // Only ever written under mutex_: a plain store, no read-modify-write needed.
  const std::uint64_t ticket = submitted_.load(std::memory_order_relaxed) + 1;
  submitted_.store(ticket, std::memory_order_release);
  return ticket;
}

void WorkQueue::finish_locked(std::exception_ptr error, std::uint64_t ticket, bool taking_next) {
  if (error && !error_) {
    error_ = std::move(error);
    error_ticket_ = ticket;
    has_error_.store(true, std::memory_order_release);
  }
  completed_.store(ticket, std::memory_order_release);
  if (waiters_ == 0) return;
  // Note [Wake waiters that can proceed]
  // Threads waiting for room (they wait only while the queue is full, or for their turn,
  // which the thread before them passes on with a wake of its own) are woken when the queue
  // has drained to half (or the finisher leaves the rest to others), so that a host that
  // keeps the queue full refills it in batches rather than one piece per completion.
  bool wake = !taking_next || (room_waiters_ > 0 && queue_.size() == kMaxQueued / 2);
  for (std::size_t i = 0; !wake && i < waited_tickets_.size(); ++i)
    wake = waited_tickets_[i] <= ticket;
  if (wake) {
    ++wakeups_;
    done_cv_.notify_all();
  }
}

std::uint64_t WorkQueue::wakeups() const {
  std::lock_guard lock(mutex_);
  return wakeups_;
}

void WorkQueue::enqueue(std::unique_ptr<Task> task) {
  std::unique_lock lock(mutex_);
  if (stopped_) {
    // After shutdown (the backend is gone, buffers are still being freed): run here.
    const std::uint64_t ticket = next_ticket_locked();
    std::exception_ptr error;
    try {
      task->run();
    } catch (...) {
      error = std::current_exception();
    }
    finish_locked(error, ticket);
    return;
  }
  if ((queue_.size() >= kMaxQueued || room_turn_ != room_next_turn_) && !running_work()) {
    wait_for_room_locked(lock);
    if (stopped_) {  // shut down while this thread waited: run here, as above
      lock.unlock();
      enqueue(std::move(task));
      return;
    }
  }
  queue_.emplace_back(next_ticket_locked(), std::move(task));
  if (!worker_.joinable()) {
    try {
      worker_ = std::thread([this] { worker(); });
    } catch (const std::system_error&) {
      // The system refused the thread (its thread or address-space limit): the work runs
      // here, as inline work does, and the next submission tries again.
      while (!busy_ && !queue_.empty()) run_front_locked(lock);
    }
  } else if (!busy_) {
    work_cv_.notify_one();
  }
}

void WorkQueue::wait_for_room_locked(std::unique_lock<std::mutex>& lock) {
  const std::uint64_t turn = room_next_turn_++;
  auto may_enter = [&] { return turn == room_turn_ && queue_.size() < kMaxQueued; };
  while (!may_enter() && !stopped_) {
    if (!busy_ && !queue_.empty()) {
      run_front_locked(lock);  // the worker is between pieces: help rather than sleep
      continue;
    }
    ++waiters_;
    ++room_waiters_;
    done_cv_.wait(lock, [&] { return may_enter() || (!busy_ && !queue_.empty()) || stopped_; });
    --room_waiters_;
    --waiters_;
  }
  ++room_turn_;  // the next thread in line (after shutdown every waiter leaves, in any order)
  if (waiters_ > 0) done_cv_.notify_all();
}

std::size_t WorkQueue::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

std::size_t WorkQueue::waiting_for_room() const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(room_next_turn_ - room_turn_);
}

std::uint64_t WorkQueue::last_ticket() const {
  std::lock_guard lock(mutex_);
  return submitted_;
}

void WorkQueue::wait(std::uint64_t ticket) {
  std::unique_lock lock(mutex_);
  wait_locked(lock, ticket);
  if (error_ && error_ticket_ <= ticket) std::rethrow_exception(error_);
}

void WorkQueue::synchronize() {
  // Everything submitted so far has completed and nothing failed: no lock needed (the
  // common case after inline work).
  if (reached(submitted_.load(std::memory_order_acquire)) &&
      !has_error_.load(std::memory_order_acquire))
    return;
  std::unique_lock lock(mutex_);
  wait_locked(lock, submitted_);
  if (error_) {
    std::exception_ptr e = std::exchange(error_, nullptr);
    error_ticket_ = 0;
    has_error_.store(false, std::memory_order_release);
    std::rethrow_exception(e);
  }
}

void WorkQueue::wait_locked(std::unique_lock<std::mutex>& lock, std::uint64_t ticket) {
  while (!reached(ticket)) {
    if (!busy_ && !queue_.empty() && queue_.front().first <= ticket) {
      // The worker has not picked the next piece up yet (it may still be waking): run it
      // here rather than sleep until the worker has run it and woken this thread.
      run_front_locked(lock);
      continue;
    }
    ++waiters_;
    waited_tickets_.push_back(ticket);
    done_cv_.wait(lock, [&] { return reached(ticket) || (!busy_ && !queue_.empty()); });
    waited_tickets_.erase(std::find(waited_tickets_.begin(), waited_tickets_.end(), ticket));
    --waiters_;
  }
}

void WorkQueue::run_front_locked(std::unique_lock<std::mutex>& lock, bool by_worker) {
  auto [ticket, task] = std::move(queue_.front());
  queue_.pop_front();
  busy_ = true;
  lock.unlock();
  std::exception_ptr error;
  try {
    ScopedKernelPool scope(pool_);
    RunningWork running;
    task->run();
  } catch (...) {
    error = std::current_exception();
  }
  task.reset();
  lock.lock();
  busy_ = false;
  // The worker takes the next piece, if any, before it lets the lock go: no one else needs
  // waking to run it. A thread that helps may leave (its ticket reached) with pieces queued
  // and, where the system refused the worker's thread, nobody else to run them: it wakes
  // every waiter, as before.
  finish_locked(std::move(error), ticket, /*taking_next=*/by_worker);
  if (!queue_.empty()) work_cv_.notify_one();
}

void WorkQueue::shutdown() {
  {
    std::unique_lock lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    if (waiters_ > 0) done_cv_.notify_all();  // threads waiting for room enter at once
    // No worker (the system refused its thread): what is queued runs here.
    if (!worker_.joinable())
      while (!queue_.empty()) {
        if (busy_) {  // a waiter is running a piece: finish_locked wakes waiters
          ++waiters_;
          waited_tickets_.push_back(0);  // woken at any completion
          done_cv_.wait(lock, [&] { return !busy_; });
          waited_tickets_.erase(std::find(waited_tickets_.begin(), waited_tickets_.end(), 0));
          --waiters_;
          continue;
        }
        run_front_locked(lock);
      }
  }
  work_cv_.notify_one();
  if (worker_.joinable()) worker_.join();
}

void WorkQueue::worker() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [&] {
      return (!queue_.empty() && !busy_) || (stopped_ && queue_.empty() && !busy_);
    });
    if (queue_.empty()) return;  // stopped and drained
    run_front_locked(lock, /*by_worker=*/true);
  }
}

}  // namespace hetero::cpu
