// SPDX-License-Identifier: Apache-2.0
#pragma once
// The consistency check of collectives (ProcessGroupOptions::check_consistency): every
// rank describes its call in a fixed-size record, the records are all-gathered, and
// when they differ every rank throws the same DistributedError, which lists them.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <hetero/tensor.hpp>

#include "group.hpp"

namespace hetero::distributed::detail {

// What else about a call must agree, as a hash (0: nothing), and its description for the
// message (its first 111 characters are shown; the ranks compare the hash, not the text):
// new_group's rank list, all_reduce_gradients' bucket of parameters.
struct CallLabel {
  std::uint64_t hash = 0;
  std::string text;
};

// What a rank says about its call of collective `op` (a name of collectives.hpp).
struct CallSite {
  const char* op;
  const Tensor* tensor;           // the operand whose shape and dtype must agree (null: barrier)
  int reduce_op = -1;             // a ReduceOp, or -1
  int root = -1;                  // broadcast's root, or -1
  std::int64_t other_numel = -1;  // the other operand's element count (gather/scatter)
  bool checked = true;            // false: never checked (point-to-point, monitored_barrier)
  CallLabel label{};
};

// FNV-1a of `bytes` bytes at `data`, continuing from `h`.
std::uint64_t fnv1a(const void* data, std::size_t bytes,
                    std::uint64_t h = 14695981039346656037ull) noexcept;

struct CheckRecords;  // the ranks' descriptions of a call (consistency.cpp)

// A collective launched with the check (when the group's check is on): first the check's
// all-gather, then `collective` only when every rank's call matches, in one task on the
// group's thread (one hand-over per collective, not two).
class CheckedCall {
 public:
  // `timeout_seconds` < 0: the group's timeout (Group::launch).
  CheckedCall(Group& g, const CallSite& site, std::function<int()> collective,
              const Tensor& written = {}, double timeout_seconds = -1);
  // Waits for the call (Group::finish): DistributedError on every rank when the ranks'
  // calls differ, listing them; MPI errors and the timeout as Group::finish. Once.
  void finish(Group& g);
  // Whether finish() would not wait (the MPI work is done, or ran on the caller's thread).
  bool done() const noexcept { return !call_.job || call_.job->done.load(); }
  // Whether the call's deadline (the group's timeout from its launch) has passed: finish()
  // would then not wait either, but raise the timeout.
  bool expired() const noexcept {
    return call_.job && std::chrono::steady_clock::now() >= call_.deadline;
  }

 private:
  PendingCall call_;
  std::shared_ptr<CheckRecords> records_;  // null: the check is off
};

// CheckedCall(g, site, collective, written).finish(g): a blocking collective.
void call_checked(Group& g, const CallSite& site, std::function<int()> collective,
                  const Tensor& written = {});

}  // namespace hetero::distributed::detail
