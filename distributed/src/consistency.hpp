// SPDX-License-Identifier: Apache-2.0
#pragma once
// The consistency check of collectives (ProcessGroupOptions::check_consistency): every
// rank describes its call in a fixed-size record, the records are all-gathered, and
// when they differ every rank throws the same DistributedError, which lists them.
#include <hetero/tensor.hpp>

#include "group.hpp"

namespace hetero::distributed::detail {

// What a rank says about its call of collective `op` (a name of collectives.hpp).
struct CallSite {
  const char* op;
  const Tensor* tensor;           // the operand whose shape and dtype must agree (null: barrier)
  int reduce_op = -1;             // a ReduceOp, or -1
  int root = -1;                  // broadcast's root, or -1
  std::int64_t other_numel = -1;  // the other operand's element count (gather/scatter)
};

// Runs `collective` (MPI calls) for `site` in one task on the group's thread: first the
// check's all-gather (when the group's check is on), then `collective` only when every
// rank's call matches; otherwise DistributedError on every rank. One hand-over to the
// communication thread per collective, not two.
void call_checked(Group& g, const CallSite& site, std::function<int()> collective,
                  const Tensor& written = {});

}  // namespace hetero::distributed::detail
