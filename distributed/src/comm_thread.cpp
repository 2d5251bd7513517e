// SPDX-License-Identifier: Apache-2.0
#include "comm_thread.hpp"

#include <vector>

namespace hetero::distributed::detail {
namespace {

// How long each side spins (yielding) before it sleeps (Note [Timeouts on a blocking MPI]).
constexpr auto spin_time = std::chrono::microseconds(50);

// Spins until `flag` is set or spin_time has passed; true when it was set.
bool spin_for(const std::atomic<bool>& flag) {
  const auto until = std::chrono::steady_clock::now() + spin_time;
  do {
    if (flag.load(std::memory_order_acquire)) return true;
    std::this_thread::yield();
  } while (std::chrono::steady_clock::now() < until);
  return flag.load(std::memory_order_acquire);
}

}  // namespace

CommThread::CommThread() : thread_([this] { loop(); }) {}

CommThread::~CommThread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

namespace {
std::mutex g_abandoned_mutex;
std::vector<CommThread*>* g_abandoned = nullptr;  // leaked with the threads it lists
}  // namespace

void CommThread::abandon() noexcept {
  if (thread_.joinable()) thread_.detach();
  std::lock_guard lock(g_abandoned_mutex);
  try {
    if (!g_abandoned) g_abandoned = new std::vector<CommThread*>;
    g_abandoned->push_back(this);
  } catch (...) {
    // Not remembered: the exit then finalises MPI as before (a crash is possible only if
    // the thread is still inside MPI then).
  }
}

bool CommThread::any_abandoned_inside_mpi() noexcept {
  std::lock_guard lock(g_abandoned_mutex);
  if (!g_abandoned) return false;
  for (const CommThread* t : *g_abandoned)
    if (!t->done_.load(std::memory_order_acquire)) return true;
  return false;
}

std::optional<int> CommThread::run(std::function<int()> task,
                                   std::chrono::duration<double> timeout) {
  // Beyond 1e9 s (31 years; inf), no deadline: the steady_clock time point would overflow
  // (issue #29: HETERO_DISTRIBUTED_TIMEOUT=inf made every collective time out at once).
  const bool forever = !(timeout.count() < 1e9);
  const auto deadline =
      forever ? std::chrono::steady_clock::time_point::max()
              : std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
  {
    std::lock_guard lock(mutex_);
    task_ = std::move(task);
    done_.store(false, std::memory_order_relaxed);
    posted_.store(true, std::memory_order_release);
  }
  wake_.notify_one();
  if (!spin_for(done_)) {
    std::unique_lock lock(mutex_);
    const auto done = [this] { return done_.load(std::memory_order_acquire); };
    if (forever)
      finished_.wait(lock, done);
    else if (!finished_.wait_until(lock, deadline, done))
      return std::nullopt;
  }
  std::lock_guard lock(mutex_);
  return result_;
}

void CommThread::loop() {
  for (;;) {
    spin_for(posted_);
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return posted_.load(std::memory_order_acquire) || stop_; });
    if (!posted_.load(std::memory_order_acquire)) return;  // stop_
    posted_.store(false, std::memory_order_relaxed);
    lock.unlock();
    const int result = task_();
    lock.lock();
    result_ = result;
    done_.store(true, std::memory_order_release);
    lock.unlock();
    finished_.notify_one();
  }
}

}  // namespace hetero::distributed::detail
