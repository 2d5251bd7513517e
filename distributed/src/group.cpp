// SPDX-License-Identifier: Apache-2.0
#include "group.hpp"

#include <fmt/format.h>

namespace hetero::distributed::detail {

std::string Group::who() const { return fmt::format("rank {} of {}", rank, size); }

DistributedError Group::error(const char* op, const std::string& what) const {
  return DistributedError(fmt::format("{}: {}: {}", who(), op, what));
}

int Group::call(const char* op, std::function<int()> task) {
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
      broken = fmt::format("{} did not complete within {} s", op, options.timeout_seconds);
      throw error(
          op, fmt::format(
                  "did not complete within {} s (the group's timeout, HETERO_DISTRIBUTED_TIMEOUT): "
                  "a peer process exited or is stuck; the process group is now unusable",
                  options.timeout_seconds));
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
