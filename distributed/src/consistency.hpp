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
  const Tensor* tensor;      // the operand whose shape and dtype must agree
  int reduce_op = -1;        // a ReduceOp, or -1
  int root = -1;             // broadcast's root, or -1
  std::int64_t other_numel = -1;  // the other operand's element count (gather/scatter)
};

// Throws DistributedError on every rank when the ranks' call sites differ (a no-op when
// the group's check is off).
void check_consistency(Group& g, const CallSite& site);

}  // namespace hetero::distributed::detail
