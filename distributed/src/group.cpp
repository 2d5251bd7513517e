// SPDX-License-Identifier: Apache-2.0
#include "group.hpp"

#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <hetero/relocate_storage.hpp>

namespace hetero::distributed::detail {
// Never freed, as the abandoned thread is never joined.
void keep_forever(std::shared_ptr<void> memory) {
  static std::mutex mutex;
  static auto* kept = new std::vector<std::shared_ptr<void>>;  // never destroyed
  std::lock_guard lock(mutex);
  kept->push_back(std::move(memory));
}

std::string Group::who() const {
  if (world_ranks.empty()) return fmt::format("rank {} of {}", rank, size);
  return fmt::format("rank {} of {} in group [{}] (default-group rank {})", rank, size,
                     fmt::join(world_ranks, ", "), world_ranks[static_cast<std::size_t>(rank)]);
}

std::string ranks_str(const std::vector<int>& world_ranks, const std::vector<std::size_t>& ranks) {
  std::string s = fmt::format("{} {}", ranks.size() > 1 ? "ranks" : "rank", fmt::join(ranks, ", "));
  if (world_ranks.empty()) return s;
  std::vector<int> global;
  for (std::size_t r : ranks) global.push_back(world_ranks.at(r));
  return s + fmt::format(" (default-group {} {})", ranks.size() > 1 ? "ranks" : "rank",
                         fmt::join(global, ", "));
}

std::string Group::ranks_str(const std::vector<std::size_t>& ranks) const {
  return detail::ranks_str(world_ranks, ranks);
}

DistributedError Group::error(const char* op, const std::string& what) const {
  return DistributedError(fmt::format("{}: {}: {}", who(), op, what));
}

int Group::call(const char* op, std::function<int()> task, const Tensor& written) {
  PendingCall pending = launch(op, std::move(task), written);
  return finish(pending);
}

PendingCall Group::launch(const char* op, std::function<int()> task, const Tensor& written,
                          double timeout_seconds) {
  PendingCall p;
  p.op = op;
  if (!thread) {
    p.result = task();
    return p;
  }
  if (thread->abandoned() && broken.empty())  // another group's call timed out on it
    broken =
        "the communication thread it shares with another process group is stuck in a "
        "collective that timed out";
  if (!broken.empty()) throw error(op, "the process group is unusable: " + broken);
  // Forget the calls known to be done (their tensors are safe).
  std::erase_if(outstanding, [](const auto& o) { return o.first->done.load(); });
  p.deadline = CommThread::deadline_after(std::chrono::duration<double>(
      timeout_seconds < 0 ? options.timeout_seconds : timeout_seconds));
  p.job = thread->post(std::move(task));
  if (written.defined()) outstanding.emplace_back(p.job, written);
  return p;
}

int Group::finish(PendingCall& p) {
  if (p.job) {
    if (thread && thread->abandoned() && broken.empty())
      broken =
          "the communication thread it shares with another process group is stuck in a "
          "collective that timed out";
    if (!broken.empty() && !p.job->done.load())
      throw error(p.op, "the process group is unusable: " + broken);
    const auto result =
        p.job->done.load() ? std::optional<int>(p.job->result) : thread->wait(*p.job, p.deadline);
    if (!result) {
      // Note [Timeouts on a blocking MPI]: the thread stays in MPI; leak it with its tasks.
      CommThread::abandon(thread);
      std::string memory_note;
      for (auto& [job, tensor] : outstanding) {
        if (job->done.load()) continue;
        try {
          keep_forever(relocate_storage(tensor));
        } catch (const Error& e) {  // out of memory: the late write would reach the tensor
          memory_note = fmt::format(
              "; its tensor could not be moved to new memory ({}) and may still be written",
              e.what());
        }
      }
      outstanding.clear();
      broken = fmt::format("{} did not complete within {} s", p.op, options.timeout_seconds);
      throw error(
          p.op,
          fmt::format(
              "did not complete within {} s (the group's timeout, HETERO_DISTRIBUTED_TIMEOUT): "
              "{}; the process group is now unusable{}",
              options.timeout_seconds,
              p.explain_timeout ? p.explain_timeout() : "a peer process exited or is stuck",
              memory_note));
    }
    p.result = *result;
    p.job.reset();
  }
  const int rc = p.result;
  if (rc > MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(rc, text, &length);
    throw error(p.op,
                fmt::format("MPI failed: {}", std::string(text, static_cast<std::size_t>(length))));
  }
  return rc;
}

bool Group::drain() {
  if (!thread || !broken.empty()) return broken.empty();
  const auto deadline =
      CommThread::deadline_after(std::chrono::duration<double>(options.timeout_seconds));
  while (!thread->idle()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  outstanding.clear();
  return true;
}

}  // namespace hetero::distributed::detail
