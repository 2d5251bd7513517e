// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed/process_group.hpp
/// The process group: every process started by `mpirun -np N`, numbered 0..N-1, as
/// torch.distributed's default group. One group per process; not thread-safe: call
/// collectives from one thread at a time, in the same order on every rank.
#include <hetero/distributed/work.hpp>
#include <hetero/export.hpp>

namespace hetero::distributed {

/// How a process group behaves; environment variables override the fields.
struct ProcessGroupOptions {
  /// Seconds a collective may take before it throws DistributedError and the group
  /// becomes unusable, as init_process_group(timeout=) in torch (the same 1800 s
  /// default). Collectives then run on a communication thread that the caller waits
  /// for. <= 0: no timeout, collectives run on the calling thread (a dead peer then
  /// hangs them, unless mpirun ends the job, its default). HETERO_DISTRIBUTED_TIMEOUT.
  double timeout_seconds = 1800;
  /// Seconds that init_process_group()'s start-up may take: MPI_Init_thread and the
  /// group's set-up (MPI_Comm_dup and the ranks' agreement), which wait for every process
  /// of the job to arrive. A bound of its own (issue #48): starting N processes under a
  /// sanitizer or on a loaded machine takes seconds, so a short collective timeout must
  /// not fail a healthy start. < 0 (the default): the larger of 300 s and timeout_seconds,
  /// where a timeout_seconds of 0 (none) is the larger; 0 or inf: no bound (0: MPI starts
  /// on the calling thread). HETERO_DISTRIBUTED_INIT_TIMEOUT.
  double init_timeout_seconds = -1;
  /// Before each collective, all ranks exchange a fixed 80-byte description of it (operation,
  /// dtype, shape, reduction, root) and throw DistributedError naming the ranks that
  /// differ, instead of exchanging mismatched bytes or hanging. Costs one small exchange
  /// per collective: point to point in groups of up to 64 processes, so that a timeout
  /// names the ranks whose description never came; an all-gather above. About 0.5 us at 2
  /// processes on one machine. HETERO_DISTRIBUTED_CHECK=0 turns it off.
  bool check_consistency = true;
};

/// Joins the group of the processes `mpirun` started (MPI_COMM_WORLD), initialising
/// MPI (MPI_THREAD_SERIALIZED) unless the application already did; a process started
/// without mpirun is a group of one. MPI errors are returned, not fatal
/// (MPI_ERRORS_RETURN on the group's own communicator). MPI's start-up and the group's
/// set-up wait for every process of the job, under the start-up timeout
/// (ProcessGroupOptions::init_timeout_seconds, HETERO_DISTRIBUTED_INIT_TIMEOUT; on a
/// thread, as collectives): DistributedError when a peer has not joined within it (killed
/// or stuck before init_process_group), when a group already exists, when a timeout is
/// malformed, or when MPI fails to start.
/// The ranks agree on check_consistency: on for every rank when any rank asks for it
/// (a warning is logged when they differ). To join an existing MPI_Comm, see
/// <hetero/distributed/mpi.hpp>.
HETERO_API void init_process_group(const ProcessGroupOptions& options = {});

/// Leaves the group: frees its communicator, staging buffers and thread (after a
/// timeout it frees nothing: a thread is still inside MPI). Destroys every new_group()
/// group with it, as torch's destroy_process_group(): their queued calls complete (or
/// time out) first; afterwards their handles' collectives raise DistributedError, and a
/// Work of any destroyed group raises at wait(). A no-op without a group; a new group (and
/// new subgroups) may be created afterwards. MPI itself is finalised at exit when
/// init_process_group() initialised it, so a program need not call this.
HETERO_API void destroy_process_group() noexcept;

/// True between init_process_group() and destroy_process_group().
HETERO_API bool is_initialized() noexcept;

/// This process's rank, 0..world_size()-1. DistributedError without a group.
HETERO_API int rank();
/// Number of processes in the group. DistributedError without a group.
HETERO_API int world_size();
/// This process's rank among the group's processes on the same machine (shared memory),
/// to pick its GPU: try_gpu(local_rank()). DistributedError without a group.
HETERO_API int local_rank();
/// Number of the group's processes on this machine (shared memory), as torchrun's
/// LOCAL_WORLD_SIZE: they share its cores (DistributedDataParallel's Overlap::automatic).
/// DistributedError without a group.
HETERO_API int local_world_size();

/// Returns when every rank has called it (MPI_Barrier). DistributedError on failure.
HETERO_API void barrier();
/// barrier launched asynchronously: the Work completes when every rank has called it.
HETERO_API Work barrier(AsyncOp);
/// A barrier that names the ranks that did not reach it, as
/// torch.distributed.monitored_barrier(wait_all_ranks=True): rank 0 waits up to
/// `timeout_seconds` (< 0: the group's timeout) for every other rank, then throws
/// DistributedError "rank(s) ... did not arrive within T s", and every rank that did
/// arrive throws the same list; a rank to which rank 0 does not answer within
/// 2 * timeout_seconds + 1 s throws saying so.
/// Point-to-point messages, outside the consistency check; the group stays usable. For
/// debugging where a rank is stuck: it costs 2 (world_size - 1) messages through rank 0.
HETERO_API void monitored_barrier(double timeout_seconds = -1);

}  // namespace hetero::distributed
