// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed/distributed_error.hpp
/// hetero::distributed::DistributedError — what every failure of a process group throws.
#include <hetero/error.hpp>
#include <hetero/export.hpp>

namespace hetero::distributed {

/// A process group used before init_process_group() or after a failure, ranks that
/// disagree on a collective (shapes, dtypes, operation, root), an error returned by MPI,
/// or a collective that did not finish within the group's timeout (a peer process died
/// or is stuck). Messages start with "rank R of N:" and name the collective. After a
/// timeout the group is unusable: every later collective throws this error at once, and
/// the tensor of the timed-out collective has been moved to new memory (relocate_storage):
/// the abandoned MPI call, if a late peer completes it, writes only the old memory.
class HETERO_API DistributedError : public Error {
 public:
  using Error::Error;
};

}  // namespace hetero::distributed
