// SPDX-License-Identifier: Apache-2.0
#pragma once
// Group: the state of this process's process group (one per process), and the one way
// collectives make MPI calls (Group::call).
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <hetero/distributed/distributed_error.hpp>
#include <hetero/distributed/process_group.hpp>

#include "comm_thread.hpp"
#include "reduction.hpp"
#include "staging.hpp"

namespace hetero::distributed::detail {

// The message tags on a group's communicator (MPI promises tags up to 32767): send/recv's,
// then monitored_barrier's (one per call, cycling), then the consistency check's records.
constexpr int max_user_tag = 16383;
constexpr int monitored_barrier_first_tag = 16384, monitored_barrier_tags = 8192;
constexpr int check_record_tag = monitored_barrier_first_tag + monitored_barrier_tags;

// A collective's MPI work, launched by Group::launch.
struct PendingCall {
  const char* op = "";
  std::shared_ptr<CommThread::Job> job;  // null: it ran on the caller's thread
  int result = 0;                        // its result, when it ran on the caller's thread
  std::chrono::steady_clock::time_point deadline;
  // Called when the deadline passes: what is known of why (which ranks did not arrive;
  // Note [Naming the ranks that did not arrive]). Empty: "a peer exited or is stuck".
  std::function<std::string()> explain_timeout;
};

// Group::ranks_str with the group's default-group ranks given (empty: the default group).
std::string ranks_str(const std::vector<int>& world_ranks, const std::vector<std::size_t>& ranks);

// Keeps `memory` alive for the rest of the process: what an abandoned MPI call may still
// write (a timed-out collective's tensor, the records of a failed exchange). Thread-safe.
void keep_forever(std::shared_ptr<void> memory);

struct Group {
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate, with MPI_ERRORS_RETURN
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  bool owns_mpi = false;  // init_process_group() initialised MPI: finalise it
  ProcessGroupOptions options;
  // Null: calls run on the caller's thread. Shared by every group of the process (the world
  // group's and new_group's), so that their MPI calls are made one at a time, in the
  // order they were launched (MPI_THREAD_SERIALIZED).
  std::shared_ptr<CommThread> thread;
  std::string broken;  // why the group is unusable (after a timeout)
  NanReductions nan_ops;
  Staging staging;
  // Collectives called on this rank, counting those that failed before communicating (a
  // local DTypeError): the consistency check's sequence number, so that a rank whose call
  // failed locally cannot pair its next call with a peer's previous one (issue #29).
  std::int32_t calls = 0;
  std::int32_t monitored_barriers = 0;  // monitored_barrier's calls: its message tags
  // The thread inside a collective of this group (none: id()), and how deeply (GroupUse).
  std::atomic<std::thread::id> user{};
  int user_depth = 0;  // read and written by `user` only

  // A new_group() group's members as ranks of the default group, in group rank order; empty
  // for the default group.
  std::vector<int> world_ranks;
  // "rank R of N", and for a new_group() group "rank R of N in group [a, b, ...] (default-group
  // rank W)".
  std::string who() const;
  // "rank 2" or "ranks 0, 2" for group ranks `ranks`, with their default-group ranks in a
  // new_group() group ("ranks 0, 1 (default-group ranks 0, 2)").
  std::string ranks_str(const std::vector<std::size_t>& ranks) const;
  // A DistributedError "rank R of N: <op>: <what>".
  DistributedError error(const char* op, const std::string& what) const;
  // Runs `task`, MPI calls for collective `op`, on the communication thread when there is
  // one, and returns its result: MPI_SUCCESS, or a negative code of the caller's own.
  // launch() then finish(): see them.
  int call(const char* op, std::function<int()> task, const Tensor& written = {});
  // Posts `task` to the communication thread behind the calls launched before it, with a
  // deadline of the group's timeout from now; without a thread, runs it now. `task` keeps
  // alive what MPI reads and writes (captured tensor handles). `written`: the tensor whose
  // memory MPI writes, when it may be a user's; after a timeout it is given new memory
  // (relocate_storage), so the late completion of the abandoned call writes memory no
  // tensor sees (issue #29 item 3).
  // `timeout_seconds` < 0: the group's (options.timeout_seconds).
  PendingCall launch(const char* op, std::function<int()> task, const Tensor& written = {},
                     double timeout_seconds = -1);
  // Waits for `call` and returns its result: MPI_SUCCESS, or a negative code of the
  // caller's own. DistributedError naming MPI's error when it returns an MPI error code,
  // and after the deadline: the group then becomes unusable (Note [Timeouts on a blocking
  // MPI]), and every call still pending has its tensor moved to new memory.
  int finish(PendingCall& call);
  // Waits, up to the group's timeout, for every launched call to complete (before the
  // group is destroyed); false when one is still inside MPI.
  bool drain();

  // Calls launched and not yet known to be done, with the tensors they write.
  std::vector<std::pair<std::shared_ptr<CommThread::Job>, Tensor>> outstanding;
  // This group's number among the groups of the process (Work checks it is still current).
  std::uint64_t id = 0;
  // A new_group() group destroyed with the default group (destroy_process_group, as
  // torch's destroys every group): unusable, out of live_groups, its MPI objects freed
  // when `released`; its last ProcessGroup handle then deletes it (else leaves it behind).
  bool destroyed = false;
  bool released = false;
};

// The process group for collective `op` (`target`, or the default group when null),
// counting the call (Group::calls); DistributedError when there is none or it is unusable.
Group& group(const char* op, Group* target = nullptr);

// One collective's hold on the process group, for its scope: group(op), and the group
// marked as used by this thread. A second thread calling a collective meanwhile gets a
// DistributedError instead of interleaving its MPI calls with the first's (issue #29: it
// segfaulted or gave wrong results; the calls of a group must come in one order on every
// rank, which two threads of a rank cannot promise). The same thread may nest.
class GroupUse {
 public:
  // `new_call` false: a hold for waiting on (or around) a call already counted: the group
  // need only exist (not be usable), and Group::calls does not move.
  // `target`: the group (null: the process's default group, init_process_group's).
  explicit GroupUse(const char* op, bool new_call = true, Group* target = nullptr);
  ~GroupUse();
  GroupUse(const GroupUse&) = delete;
  GroupUse& operator=(const GroupUse&) = delete;
  Group& group;
};

// A new group on a duplicate of `comm` (collective over its processes, on the shared
// communication thread when `thread_level` allows one, under the options' start-up timeout
// when `start_up` (init_process_group), else their collective one (new_group)): rank, size,
// local rank, the agreed consistency check. `free_parent`: `comm` is freed once duplicated.
// DistributedError when the set-up fails or times out.
std::unique_ptr<Group> make_group(MPI_Comm comm, const ProcessGroupOptions& options,
                                  int thread_level, bool free_parent, bool start_up);

// Frees `g` (destroy_process_group, the last ProcessGroup handle): waits for its pending
// calls, frees its MPI objects and deletes it; leaks it instead while a collective of it is
// still inside MPI (or another thread's), or after MPI_Finalize.
void retire(Group* g) noexcept;

// The live group numbered `id` (Group::id), or null once it was retired.
Group* find_group(std::uint64_t id) noexcept;

// Whether a thread other than the caller is inside a collective of `g`.
bool used_by_another_thread(const Group& g) noexcept;

}  // namespace hetero::distributed::detail
