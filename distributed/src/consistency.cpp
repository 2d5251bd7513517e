// SPDX-License-Identifier: Apache-2.0
#include "consistency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include <hetero/distributed/collectives.hpp>

#include "reduction.hpp"

namespace hetero::distributed::detail {

std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

namespace {

// Every dimension a tensor can have (the SDK's kMaxDims; the core refuses more).
constexpr std::size_t shown_dims = 8;

// 256 bytes, no padding: exchanged as MPI_BYTE between identical builds. The ranks agree
// when the bytes before `op` agree; `op` and `label` are for the message.
struct Record {
  std::int64_t dims[shown_dims];
  std::int64_t numel;
  std::uint64_t shape_hash;  // FNV-1a of every dimension
  std::int64_t other_numel;
  std::uint64_t label_hash;
  std::int32_t op_hash, dtype, reduce_op, root, ndim, seq;  // seq: Group::calls
  char op[24];
  char label[112];
  bool operator==(const Record& o) const {
    return std::memcmp(this, &o, offsetof(Record, op)) == 0;
  }
};
static_assert(sizeof(Record) == 256);

// `text` into `out` (NUL-terminated), cut with "..." when it does not fit.
template <std::size_t N>
void copy_text(char (&out)[N], const std::string& text) {
  if (text.size() < N) {
    std::memcpy(out, text.c_str(), text.size() + 1);
    return;
  }
  std::memcpy(out, text.data(), N - 4);
  std::memcpy(out + N - 4, "...", 4);
}

Record describe(const CallSite& site, std::int32_t seq) {
  Record r{};
  r.op_hash = static_cast<std::int32_t>(fnv1a(site.op, std::strlen(site.op)) & 0x7fffffff);
  copy_text(r.op, site.op);
  copy_text(r.label, site.label.text);
  r.label_hash = site.label.hash;
  r.reduce_op = site.reduce_op;
  r.root = site.root;
  r.other_numel = site.other_numel;
  r.seq = seq;
  r.dtype = -1;
  r.ndim = -1;  // no operand (barrier)
  if (site.tensor == nullptr) return r;
  const Shape& shape = site.tensor->shape();
  for (std::size_t d = 0; d < std::min(shape.size(), shown_dims); ++d) r.dims[d] = shape[d];
  r.numel = site.tensor->numel();
  r.shape_hash = fnv1a(shape.data(), shape.size() * sizeof(std::int64_t));
  r.dtype = static_cast<std::int32_t>(site.tensor->dtype());
  r.ndim = static_cast<std::int32_t>(shape.size());
  return r;
}

std::string show(const Record& r, const Record& my_record) {
  std::string s = r.op;
  if (r.label[0] != '\0') s += fmt::format(" ({})", r.label);
  if (r.seq != my_record.seq)
    s += fmt::format(" (its call #{}, this rank's #{})", r.seq, my_record.seq);
  if (r.ndim < 0) return s;
  s += fmt::format(" {} [", dtype_name(static_cast<DType>(r.dtype)));
  for (std::int32_t d = 0; d < std::min<std::int32_t>(r.ndim, shown_dims); ++d)
    s += fmt::format("{}{}", d ? ", " : "", r.dims[d]);
  s += "]";
  if (r.reduce_op >= 0) s += fmt::format(" {}", reduce_op_name(static_cast<ReduceOp>(r.reduce_op)));
  if (r.root >= 0) s += fmt::format(" root {}", r.root);
  if (r.other_numel >= 0) s += fmt::format(" into {} elements", r.other_numel);
  return s;
}

// Note [Naming the ranks that did not arrive]
// In a group of up to named_arrival_max_ranks processes the check's records travel point
// to point, not in an MPI_Allgather: each rank sends its record to every other and polls
// for theirs, marking each rank whose record came. When the caller's deadline passes, the
// ranks not marked are those that have not reached this call, and the timeout says so
// (issue #29 item 9); when all came, the collective itself stalled. The communication
// thread keeps polling after the caller gave up, as it would have stayed inside the
// all-gather, so a late rank still completes the call with the others (Note [Timeouts on
// a blocking MPI]; test distributed.late_rank). Records pair off in call order: MPI keeps
// the order of messages between two ranks on one tag and communicator. Above that size
// the n - 1 messages per rank would cost more than the all-gather's log n rounds, and a
// timeout names no rank.
constexpr int named_arrival_max_ranks = 64;

// Where a checked call is, as its caller sees it when the deadline passes.
enum class Stage : int { queued, exchanging, collective };

}  // namespace

struct CheckRecords {
  CheckRecords(const char* op, const Record& mine, int size, bool point_to_point,
               std::vector<int> world_ranks)
      : op(op),
        mine(mine),
        all(static_cast<std::size_t>(size)),
        point_to_point(point_to_point),
        arrived(std::make_unique<std::atomic<bool>[]>(static_cast<std::size_t>(size))),
        world_ranks(std::move(world_ranks)) {}
  const char* op;
  Record mine;
  std::vector<Record> all;
  bool point_to_point;  // Note [Naming the ranks that did not arrive]
  // Written by the communication thread, read by the caller at its deadline.
  std::unique_ptr<std::atomic<bool>[]> arrived;  // per rank: its record came
  std::atomic<Stage> stage{Stage::queued};
  std::vector<int> world_ranks;  // Group::world_ranks: how the messages name the ranks
};

namespace {
constexpr int disagree = -1;

// Polls `requests` until all complete, marking `arrived[peer_of[i]]` as receive i (the
// first peer_of.size() requests) completes. Spins 20 us, yields to 50 us, then sleeps 50 us
// per turn, leaving the core to the kernels (a DDP bucket waits for its peer while backward
// computes: yielding until 10 ms made a 3-bucket step 3.1 -> 3.8 ms on 2 cores). Returns
// MPI's code.
int poll_records(std::vector<MPI_Request>& requests, const std::vector<int>& peer_of,
                 std::atomic<bool>* arrived) {
  using clock = std::chrono::steady_clock;
  std::vector<int> completed(requests.size());
  std::size_t left = requests.size();
  auto last_progress = clock::now();
  while (left > 0) {
    int count = 0;
    const int rc = MPI_Testsome(static_cast<int>(requests.size()), requests.data(), &count,
                                completed.data(), MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    if (count == MPI_UNDEFINED) break;  // every request already null
    for (int i = 0; i < count; ++i) {
      const auto k = static_cast<std::size_t>(completed[static_cast<std::size_t>(i)]);
      if (k < peer_of.size()) arrived[peer_of[k]].store(true, std::memory_order_release);
    }
    left -= static_cast<std::size_t>(count);
    const auto now = clock::now();
    if (count > 0)
      last_progress = now;
    else if (now - last_progress > std::chrono::microseconds(50))
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    else if (now - last_progress > std::chrono::microseconds(20))
      std::this_thread::yield();
  }
  return MPI_SUCCESS;
}

// The check's exchange of records: point to point in small groups, else MPI_Allgather.
int exchange(MPI_Comm comm, int rank, CheckRecords& r) {
  const int size = static_cast<int>(r.all.size());
  r.stage.store(Stage::exchanging, std::memory_order_release);
  if (!r.point_to_point)
    return MPI_Allgather(&r.mine, sizeof(Record), MPI_BYTE, r.all.data(), sizeof(Record), MPI_BYTE,
                         comm);
  r.all[static_cast<std::size_t>(rank)] = r.mine;
  r.arrived[rank].store(true, std::memory_order_release);
  std::vector<MPI_Request> requests;
  std::vector<int> peer_of;
  requests.reserve(2 * static_cast<std::size_t>(size));
  for (int p = 0; p < size; ++p) {
    if (p == rank) continue;
    requests.push_back(MPI_REQUEST_NULL);
    peer_of.push_back(p);
    const int rc = MPI_Irecv(&r.all[static_cast<std::size_t>(p)], sizeof(Record), MPI_BYTE, p,
                             check_record_tag, comm, &requests.back());
    if (rc != MPI_SUCCESS) return rc;
  }
  for (int p = 0; p < size; ++p) {
    if (p == rank) continue;
    requests.push_back(MPI_REQUEST_NULL);
    const int rc =
        MPI_Isend(&r.mine, sizeof(Record), MPI_BYTE, p, check_record_tag, comm, &requests.back());
    if (rc != MPI_SUCCESS) return rc;
  }
  return poll_records(requests, peer_of, r.arrived.get());
}

// What the caller says of a checked call whose deadline passed.
std::string explain_timeout(const CheckRecords& r, int rank) {
  switch (r.stage.load(std::memory_order_acquire)) {
    case Stage::queued:
      return "it had not started: an earlier call of the group launched before it is still "
             "inside MPI";
    case Stage::collective:
      return "every rank reached it (their consistency records all came), and then the "
             "collective itself stalled: a peer process exited or is stuck inside it";
    case Stage::exchanging:
      break;
  }
  if (!r.point_to_point)
    return fmt::format(
        "a peer process exited or is stuck (ranks that did not arrive are named "
        "in groups of up to {} processes)",
        named_arrival_max_ranks);
  std::vector<std::size_t> missing;
  for (int p = 0; p < static_cast<int>(r.all.size()); ++p)
    if (p != rank && !r.arrived[p].load(std::memory_order_acquire))
      missing.push_back(static_cast<std::size_t>(p));
  if (missing.empty())  // the last record came just now
    return "every rank reached it just before the deadline";
  return fmt::format(
      "{} {} not reached it (no consistency record came for this rank's call #{}): "
      "{}",
      ranks_str(r.world_ranks, missing), missing.size() > 1 ? "have" : "has", r.mine.seq,
      missing.size() > 1 ? "they have exited, are stuck in an earlier call or are still computing"
                         : "it has exited, is stuck in an earlier call or is still computing");
}
}  // namespace

CheckedCall::CheckedCall(Group& g, const CallSite& site, std::function<int()> collective,
                         const Tensor& written, double timeout_seconds) {
  if (!g.options.check_consistency || !site.checked) {
    call_ = g.launch(site.op, std::move(collective), written, timeout_seconds);
    if (!g.options.check_consistency && site.checked)
      call_.explain_timeout = [] {
        return std::string(
            "a peer process exited or is stuck (with HETERO_DISTRIBUTED_CHECK=1 the timeout "
            "names the ranks that did not arrive)");
      };
    return;
  }
  records_ = std::make_shared<CheckRecords>(site.op, describe(site, g.calls), g.size,
                                            g.size <= named_arrival_max_ranks, g.world_ranks);
  call_ = g.launch(
      site.op,
      [comm = g.comm, rank = g.rank, r = records_, collective = std::move(collective)] {
        const int exchanged = exchange(comm, rank, *r);
        if (exchanged != MPI_SUCCESS) {
          keep_forever(r);  // requests may still be pending on the records
          return exchanged;
        }
        if (!std::all_of(r->all.begin(), r->all.end(),
                         [&](const Record& x) { return x == r->all[0]; }))
          return disagree;
        r->stage.store(Stage::collective, std::memory_order_release);
        return collective();
      },
      written, timeout_seconds);
  call_.explain_timeout = [r = records_, rank = g.rank] { return explain_timeout(*r, rank); };
}

void CheckedCall::finish(Group& g) {
  const int rc = g.finish(call_);
  if (rc != disagree || !records_) return;
  // Group the ranks by what they called, in rank order of first appearance.
  const std::vector<Record>& all = records_->all;
  std::string listing;
  std::vector<bool> shown(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (shown[i]) continue;
    std::vector<std::size_t> same;
    for (std::size_t j = i; j < all.size(); ++j)
      if (!shown[j] && all[j] == all[i]) same.push_back(j), shown[j] = true;
    listing += fmt::format("{}{}: {}", listing.empty() ? "" : "; ", g.ranks_str(same),
                           show(all[i], records_->mine));
  }
  throw g.error(records_->op, "the ranks disagree on this collective: " + listing);
}

void call_checked(Group& g, const CallSite& site, std::function<int()> collective,
                  const Tensor& written) {
  CheckedCall(g, site, std::move(collective), written).finish(g);
}

}  // namespace hetero::distributed::detail
