// SPDX-License-Identifier: Apache-2.0
#include "comm_thread.hpp"

#include <vector>

namespace hetero::distributed::detail {
namespace {

// How long each side spins (yielding) before it sleeps (Note [Timeouts on a blocking MPI]).
constexpr auto spin_time = std::chrono::microseconds(50);

// Spins until `ready()` or spin_time has passed; true when it became ready.
template <class Ready>
bool spin_for(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + spin_time;
  do {
    if (ready()) return true;
    std::this_thread::yield();
  } while (std::chrono::steady_clock::now() < until);
  return ready();
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
  abandoned_.store(true, std::memory_order_release);
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

void CommThread::abandon(std::shared_ptr<CommThread>& owner) noexcept {
  if (!owner) return;
  owner->abandon();
  try {
    // Kept for good (and reachable, for leak checkers): the thread still uses the object.
    static auto* kept = new std::vector<std::shared_ptr<CommThread>>;
    std::lock_guard lock(g_abandoned_mutex);
    kept->push_back(owner);
  } catch (...) {
    // Out of memory: the last reference may go with the last group; its destructor then
    // finds the thread detached and returns.
  }
  owner.reset();
}

bool CommThread::any_abandoned_inside_mpi() noexcept {
  std::lock_guard lock(g_abandoned_mutex);
  if (!g_abandoned) return false;
  for (const CommThread* t : *g_abandoned)
    if (!t->idle()) return true;
  return false;
}

std::chrono::steady_clock::time_point CommThread::deadline_after(
    std::chrono::duration<double> timeout) noexcept {
  if (!(timeout.count() < 1e9)) return std::chrono::steady_clock::time_point::max();
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
}

std::shared_ptr<CommThread::Job> CommThread::post(std::function<int()> task) {
  auto job = std::make_shared<Job>();
  job->task = std::move(task);
  std::vector<std::shared_ptr<Job>> released;  // destroyed here, after the lock
  {
    std::lock_guard lock(mutex_);
    released.swap(finished_jobs_);
    queue_.push_back(job);
    pending_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_one();
  return job;
}

std::optional<int> CommThread::wait(const Job& job,
                                    std::chrono::steady_clock::time_point deadline) {
  const auto done = [&job] { return job.done.load(std::memory_order_acquire); };
  if (!spin_for(done)) {
    std::unique_lock lock(mutex_);
    if (deadline == std::chrono::steady_clock::time_point::max())
      finished_.wait(lock, done);
    else if (!finished_.wait_until(lock, deadline, done))
      return std::nullopt;
  }
  return job.result;
}

std::optional<int> CommThread::run(std::function<int()> task,
                                   std::chrono::duration<double> timeout) {
  const auto deadline = deadline_after(timeout);
  const auto job = post(std::move(task));
  return wait(*job, deadline);
}

void CommThread::loop() {
  for (;;) {
    spin_for([this] { return pending_.load(std::memory_order_acquire) > 0; });
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return !queue_.empty() || stop_; });
    if (queue_.empty()) return;  // stop_
    std::shared_ptr<Job> job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    job->result = job->task();
    lock.lock();
    job->done.store(true, std::memory_order_release);
    finished_jobs_.push_back(std::move(job));
    pending_.fetch_sub(1, std::memory_order_release);
    lock.unlock();
    finished_.notify_all();
  }
}

}  // namespace hetero::distributed::detail
