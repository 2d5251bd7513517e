// SPDX-License-Identifier: Apache-2.0
// monitored_barrier (process_group.hpp), as torch.distributed.monitored_barrier with
// wait_all_ranks: rank 0 collects an acknowledgement from every other rank within the
// timeout, names those that did not send one, and answers every rank that did.
#include <hetero/distributed/process_group.hpp>

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "collective_args.hpp"
#include "consistency.hpp"
#include "group.hpp"
#include "work_state.hpp"

namespace hetero::distributed {
namespace {

constexpr int missing_ranks = -2, no_answer = -3;

// What a monitored barrier's task learns.
struct Outcome {
  std::vector<int> missing;  // the ranks that did not arrive
  bool answered = true;      // false: rank 0 sent no answer by the deadline
};

using clock = std::chrono::steady_clock;

// Polls `request` until it completes or `deadline`; a request still pending is cancelled.
// True when it completed (also when its message came just as it was cancelled).
bool complete_by(MPI_Request& request, clock::time_point deadline) {
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done &&
         clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  if (done) return true;
  MPI_Cancel(&request);
  MPI_Status status;
  MPI_Wait(&request, &status);
  int cancelled = 0;
  MPI_Test_cancelled(&status, &cancelled);
  return !cancelled;
}

// Rank 0's side: an acknowledgement from each rank by the deadline, then the list of the
// missing ones (count first) to every rank that arrived.
int root_side(MPI_Comm comm, int world, int tag, clock::time_point deadline, Outcome& out) {
  std::vector<MPI_Request> requests(static_cast<std::size_t>(world), MPI_REQUEST_NULL);
  std::vector<int> acks(static_cast<std::size_t>(world));
  for (int r = 1; r < world; ++r) {
    const int rc = MPI_Irecv(&acks[static_cast<std::size_t>(r)], 1, MPI_INT, r, tag, comm,
                             &requests[static_cast<std::size_t>(r)]);
    if (rc != MPI_SUCCESS) return rc;
  }
  std::vector<bool> arrived(static_cast<std::size_t>(world), false);
  arrived[0] = true;
  for (int r = 1; r < world; ++r)
    arrived[static_cast<std::size_t>(r)] =
        complete_by(requests[static_cast<std::size_t>(r)], deadline);
  std::vector<int> answer{0};
  for (int r = 1; r < world; ++r)
    if (!arrived[static_cast<std::size_t>(r)]) out.missing.push_back(r);
  answer[0] = static_cast<int>(out.missing.size());
  answer.insert(answer.end(), out.missing.begin(), out.missing.end());
  answer.resize(static_cast<std::size_t>(world) + 1);
  for (int r = 1; r < world; ++r) {
    if (!arrived[static_cast<std::size_t>(r)]) continue;
    const int rc = MPI_Send(answer.data(), world + 1, MPI_INT, r, tag, comm);
    if (rc != MPI_SUCCESS) return rc;
  }
  return out.missing.empty() ? MPI_SUCCESS : missing_ranks;
}

// Another rank's side: acknowledge, then wait for rank 0's answer by the deadline.
int other_side(MPI_Comm comm, int world, int tag, clock::time_point deadline, Outcome& out) {
  const int one = 1;
  int rc = MPI_Send(&one, 1, MPI_INT, 0, tag, comm);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<int> answer(static_cast<std::size_t>(world) + 1);
  MPI_Request request = MPI_REQUEST_NULL;
  rc = MPI_Irecv(answer.data(), world + 1, MPI_INT, 0, tag, comm, &request);
  if (rc != MPI_SUCCESS) return rc;
  if (!complete_by(request, deadline)) {
    out.answered = false;
    return no_answer;
  }
  out.missing.assign(answer.begin() + 1, answer.begin() + 1 + answer[0]);
  return out.missing.empty() ? MPI_SUCCESS : missing_ranks;
}

}  // namespace

void monitored_barrier(double timeout_seconds) {
  constexpr const char* name = "monitored_barrier";
  const detail::GroupUse use(name, /*new_call=*/false);
  detail::Group& g = use.group;
  if (!g.broken.empty()) throw g.error(name, "the process group is unusable: " + g.broken);
  if (timeout_seconds < 0) timeout_seconds = g.options.timeout_seconds;
  if (!(timeout_seconds >= 0) || !(timeout_seconds < 1e9))
    throw g.error(name,
                  fmt::format("the timeout must be finite seconds >= 0, got {}", timeout_seconds));
  if (g.size == 1) return;
  const int tag =
      detail::monitored_barrier_first_tag + g.monitored_barriers++ % detail::monitored_barrier_tags;
  auto out = std::make_shared<Outcome>();
  detail::CallSite site{name, nullptr};
  site.checked = false;
  const int rank = g.rank, world = g.size;
  // The task keeps its own deadline and returns by it; the group's is a margin beyond.
  // Rank 0 waits the timeout for the others; they wait twice that and a second for its
  // answer, since rank 0 may have started later than they did.
  auto task = [comm = g.comm, rank, world, tag, timeout_seconds, out] {
    const double wait = rank == 0 ? timeout_seconds : 2 * timeout_seconds + 1;
    const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                             std::chrono::duration<double>(wait));
    return rank == 0 ? root_side(comm, world, tag, deadline, *out)
                     : other_side(comm, world, tag, deadline, *out);
  };
  auto complete = [&g, out, timeout_seconds, rank] {
    if (!out->answered)
      throw g.error(name, fmt::format("rank 0 did not answer within {} s (it has not reached "
                                      "monitored_barrier, or is stuck before it)",
                                      2 * timeout_seconds + 1));
    if (out->missing.empty()) return;
    const std::string who = fmt::format("{} {}", out->missing.size() > 1 ? "ranks" : "rank",
                                        fmt::join(out->missing, ", "));
    throw g.error(name, rank == 0
                            ? fmt::format("{} did not arrive within {} s", who, timeout_seconds)
                            : fmt::format("rank 0 reports that {} did not arrive within {} s", who,
                                          timeout_seconds));
  };
  Work(detail::launch_work(g, site, task, {}, complete, 2 * timeout_seconds + 6)).wait();
}

}  // namespace hetero::distributed
