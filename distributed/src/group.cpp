// SPDX-License-Identifier: Apache-2.0
#include "group.hpp"

#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <vector>

#include <hetero/relocate_storage.hpp>

namespace hetero::distributed::detail {
namespace {

// The memory of tensors whose collective timed out: the abandoned call may still write it,
// so it is never freed (as the abandoned thread is never joined).
void keep_forever(std::shared_ptr<void> memory) {
  static std::mutex mutex;
  static auto* kept = new std::vector<std::shared_ptr<void>>;  // never destroyed
  std::lock_guard lock(mutex);
  kept->push_back(std::move(memory));
}

}  // namespace

std::string Group::who() const { return fmt::format("rank {} of {}", rank, size); }

DistributedError Group::error(const char* op, const std::string& what) const {
  return DistributedError(fmt::format("{}: {}: {}", who(), op, what));
}

int Group::call(const char* op, std::function<int()> task, const Tensor& written) {
  int rc = MPI_SUCCESS;
  if (!thread) {
    rc = task();
  } else {
    const auto result =
        thread->run(std::move(task), std::chrono::duration<double>(options.timeout_seconds));
    if (!result) {
      // Note [Timeouts on a blocking MPI]: the thread stays in MPI; leak it with its task.
      thread->abandon();
      (void)thread.release();
      std::string memory_note;
      if (written.defined()) {
        try {
          keep_forever(relocate_storage(written));
        } catch (const Error& e) {  // out of memory: the late write would reach the tensor
          memory_note = fmt::format(
              "; its tensor could not be moved to new memory ({}) and may still be written",
              e.what());
        }
      }
      broken = fmt::format("{} did not complete within {} s", op, options.timeout_seconds);
      throw error(
          op, fmt::format(
                  "did not complete within {} s (the group's timeout, HETERO_DISTRIBUTED_TIMEOUT): "
                  "a peer process exited or is stuck; the process group is now unusable{}",
                  options.timeout_seconds, memory_note));
    }
    rc = *result;
  }
  if (rc > MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(rc, text, &length);
    throw error(op,
                fmt::format("MPI failed: {}", std::string(text, static_cast<std::size_t>(length))));
  }
  return rc;
}

}  // namespace hetero::distributed::detail
