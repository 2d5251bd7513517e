// SPDX-License-Identifier: Apache-2.0
#pragma once
// The state behind a Work: the launched call and what completes it on the caller's side.
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>

#include <hetero/distributed/work.hpp>

#include "consistency.hpp"

namespace hetero::distributed::detail {

struct WorkState {
  std::uint64_t group_id = 0;       // Group::id of the group it was launched on
  std::optional<CheckedCall> call;  // empty once finished
  std::function<void()> complete;   // after success, on the waiting thread: write-back
  bool finished = false;
  std::exception_ptr error;  // what wait() throws, once finished
  // Whether wait() would not block: the MPI work is done, or it has failed for good (its
  // deadline passed, or its group was destroyed or made unusable by an earlier failure),
  // so that a loop polling Work::is_completed() ends when a peer dies (issue #50 item 1).
  bool ready() const noexcept;
};

// Launches `site`'s collective (CheckedCall) and returns the state of its Work; `complete`
// runs on the thread that waits for it, once it succeeded.
std::shared_ptr<WorkState> launch_work(Group& g, const CallSite& site,
                                       std::function<int()> collective, const Tensor& written,
                                       std::function<void()> complete, double timeout_seconds = -1);

}  // namespace hetero::distributed::detail
