// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed/mpi.hpp
/// Joining a process group from an MPI application's own communicator. Includes <mpi.h>:
/// the only header of hetero that does.
#include <mpi.h>

#include <hetero/distributed/process_group.hpp>
#include <hetero/export.hpp>

namespace hetero::distributed {

/// Joins the group of the processes of `comm` (duplicated: hetero's messages never match
/// the application's). MPI must be initialised and stays so: destroy_process_group()
/// frees the duplicate only. Collectives run on a communication thread (for the timeout)
/// only where MPI was initialised with MPI_THREAD_SERIALIZED or more, else on the
/// calling thread without a timeout. DistributedError when a group already exists.
HETERO_API void init_process_group(MPI_Comm comm, const ProcessGroupOptions& options = {});

}  // namespace hetero::distributed
