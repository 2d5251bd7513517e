#include "comm_thread.hpp"

namespace hetero::distributed::detail {

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

void CommThread::abandon() noexcept {
  if (thread_.joinable()) thread_.detach();
}

std::optional<int> CommThread::run(std::function<int()> task, std::chrono::duration<double> timeout) {
  std::unique_lock lock(mutex_);
  task_ = std::move(task);
  has_task_ = true;
  done_ = false;
  wake_.notify_one();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
  if (!finished_.wait_until(lock, deadline, [this] { return done_; })) return std::nullopt;
  return result_;
}

void CommThread::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return has_task_ || stop_; });
    if (!has_task_) return;
    has_task_ = false;
    lock.unlock();
    const int result = task_();
    lock.lock();
    result_ = result;
    done_ = true;
    finished_.notify_one();
  }
}

}  // namespace hetero::distributed::detail
