// SPDX-License-Identifier: Apache-2.0
// init_process_group / destroy_process_group and the group's queries.
#include <hetero/config.hpp>
#include <hetero/distributed/mpi.hpp>
#include <hetero/distributed/new_group.hpp>
#include <hetero/distributed/process_group.hpp>
#include <hetero/log.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "consistency.hpp"
#include "group.hpp"
#include "work_state.hpp"

namespace hetero::distributed {
namespace detail {
namespace {

Group* current_group = nullptr;
// Every group not yet retired, by Group::id (Work finds its group here). Leaked: groups may
// be retired from static destructors.
std::unordered_map<std::uint64_t, Group*>& live_groups() {
  static auto* live = new std::unordered_map<std::uint64_t, Group*>;
  return *live;
}
// Groups left behind on purpose (at exit, after a timeout, in use by another thread): still
// reachable, so leak checkers do not report what is left to the OS.
std::vector<Group*>* abandoned_groups = nullptr;
void abandon(Group* g) noexcept {
  try {
    if (!abandoned_groups) abandoned_groups = new std::vector<Group*>;
    abandoned_groups->push_back(g);
  } catch (...) {
    // Unlisted: only a leak checker would notice.
  }
}
bool hetero_initialised_mpi = false;  // MPI_Init_thread was ours: MPI_Finalize at exit
CommThread* mpi_thread = nullptr;     // the thread that called MPI_Init_thread (null: the main)

DistributedError setup_error(const char* what, int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(rc, text, &length);
  return DistributedError(
      fmt::format("init_process_group: {} failed: {}", what, std::string(text, length)));
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw setup_error(what, rc);
}

// The one rule for a timeout, from the options or the environment (issue #29): seconds
// >= 0, where 0 means none (collectives on the calling thread) and inf none on the
// communication thread; NaN and negative values are refused, not taken as "none".
double validated_timeout(double seconds, const std::string& source) {
  if (std::isnan(seconds) || seconds < 0)
    throw DistributedError(fmt::format(
        "init_process_group: {} is not a timeout: give seconds >= 0 (0: collectives on the "
        "calling thread without a timeout; inf: no timeout)",
        source));
  return seconds;
}

// A timeout variable's value, when set: seconds as validated_timeout() accepts them.
std::optional<double> timeout_from_environment(const char* name) {
  const auto raw = config::raw(name);
  if (!raw) return std::nullopt;
  const char* t = raw->c_str();
  char* end = nullptr;
  const double seconds = std::strtod(t, &end);
  if (end == t || *end != '\0')
    throw DistributedError(
        fmt::format("init_process_group: {}='{}' is not a number of seconds", name, t));
  return validated_timeout(seconds, fmt::format("{}='{}'", name, t));
}

// The start-up bound when none was given (issue #48): the larger of 300 s and the
// collective timeout, where 0 (none) is the larger.
constexpr double kDefaultInitTimeoutSeconds = 300;

ProcessGroupOptions with_environment(ProcessGroupOptions o) {
  o.timeout_seconds = validated_timeout(
      o.timeout_seconds,
      fmt::format("ProcessGroupOptions::timeout_seconds = {}", o.timeout_seconds));
  if (const auto t = timeout_from_environment("HETERO_DISTRIBUTED_TIMEOUT")) o.timeout_seconds = *t;
  if (std::isnan(o.init_timeout_seconds))
    throw DistributedError(
        "init_process_group: ProcessGroupOptions::init_timeout_seconds = nan is not a timeout: "
        "give seconds >= 0 (0 or inf: no bound), or < 0 for the default");
  if (const auto t = timeout_from_environment("HETERO_DISTRIBUTED_INIT_TIMEOUT"))
    o.init_timeout_seconds = *t;
  if (o.init_timeout_seconds < 0)
    o.init_timeout_seconds =
        o.timeout_seconds == 0 ? 0 : std::max(kDefaultInitTimeoutSeconds, o.timeout_seconds);
  o.check_consistency = config::flag("HETERO_DISTRIBUTED_CHECK", o.check_consistency);
  return o;
}

// Frees the group's MPI objects (not after a timeout: a thread is still inside MPI).
void release_mpi_objects(Group& g) noexcept {
  // Asynchronous collectives still queued or running get the group's timeout to complete;
  // one still inside MPI after it leaves the group as a timeout does.
  if (g.broken.empty() && !g.drain()) {
    CommThread::abandon(g.thread);
    g.broken = "it was destroyed while a collective was still inside MPI";
  }
  if (!g.broken.empty()) return;
  g.thread.reset();
  g.nan_ops.free();
  if (g.comm != MPI_COMM_NULL) MPI_Comm_free(&g.comm);
}

// At exit: MPI_Finalize when hetero initialised MPI and no thread is stuck in it. Tensors
// are left alone (Note [Exit without teardown], core/src/registry.cpp): the
// staging buffers may be pinned memory of a vendor library already torn down.
// When a communication thread abandoned by a timeout (of this group or of one destroyed
// since) is still inside MPI, MPI is not finalised: mpirun then reports that the process
// exited without MPI_Finalize, which is true of a job whose collective failed, rather than
// the process crashing inside MPI_Finalize (issue #29).
void finalize_at_exit() {
  if (Group* g = current_group) {
    release_mpi_objects(*g);
    abandon(g);  // with its tensors
    current_group = nullptr;
  }
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!hetero_initialised_mpi || !initialized || finalized ||
      CommThread::any_abandoned_inside_mpi())
    return;
  if (mpi_thread == nullptr) {
    MPI_Finalize();
    return;
  }
  // On the thread that initialised MPI (it waits for the others' MPI_Finalize, as on the
  // main thread: mpirun ends a job whose peer exits without it).
  (void)mpi_thread->run([] { return MPI_Finalize(); },
                        std::chrono::duration<double>(std::numeric_limits<double>::infinity()));
}

// Before a new group's first MPI call: waits up to the group's timeout for the threads of
// groups that timed out to leave MPI (a late peer completes their call), and refuses when
// one is still inside: a second thread in MPI at once is not allowed at
// MPI_THREAD_SERIALIZED, and MPI_Comm_dup then hung (issue #29).
void wait_for_abandoned_threads(double timeout_seconds) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  while (CommThread::any_abandoned_inside_mpi()) {
    const double waited = std::chrono::duration<double>(clock::now() - start).count();
    if (!(waited < timeout_seconds))
      throw DistributedError(fmt::format(
          "init_process_group: the communication thread of a process group that timed out is "
          "still inside MPI after {:.1f} s more (a peer never joined that collective); MPI "
          "cannot be used again in this process (MPI_THREAD_SERIALIZED allows one thread in MPI "
          "at a time): end the process and restart the job",
          waited));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// The communication thread of the process's groups: one, shared, so that their MPI calls
// never overlap (MPI_THREAD_SERIALIZED); a new one once the last was abandoned or freed.
std::shared_ptr<CommThread> shared_comm_thread() {
  static std::weak_ptr<CommThread> current;
  auto t = current.lock();
  if (!t || t->abandoned()) {
    t = std::make_shared<CommThread>();
    current = t;
  }
  return t;
}

// What the set-up task of a group writes (kept by the task: a set-up abandoned at its
// deadline writes here later, never into a freed group).
struct SetUp {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  int check_votes[2] = {0, 0};  // how many ranks asked for the consistency check / not
  const char* step = "";        // the MPI call that failed
};

// The group's collective set-up: duplicate the communicator, find this rank's place, and
// agree on the consistency check (issue #29: ranks that differ in HETERO_DISTRIBUTED_CHECK
// made different MPI calls for every collective and deadlocked; it is on for all when any
// rank asks for it). Returns an MPI code; `s->step` names the call that failed.
// `free_parent`: `parent` is new_group's split communicator, freed once duplicated.
int set_up(MPI_Comm parent, bool check, bool free_parent, const std::shared_ptr<SetUp>& s) {
  auto step = [&](const char* name, int rc) {
    s->step = name;
    return rc;
  };
  int rc = step("MPI_Comm_dup", MPI_Comm_dup(parent, &s->comm));
  if (free_parent) MPI_Comm_free(&parent);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
  if ((rc = step("MPI_Comm_rank", MPI_Comm_rank(s->comm, &s->rank))) != MPI_SUCCESS) return rc;
  if ((rc = step("MPI_Comm_size", MPI_Comm_size(s->comm, &s->size))) != MPI_SUCCESS) return rc;
  MPI_Comm local = MPI_COMM_NULL;
  rc = step("MPI_Comm_split_type",
            MPI_Comm_split_type(s->comm, MPI_COMM_TYPE_SHARED, s->rank, MPI_INFO_NULL, &local));
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm_rank(local, &s->local_rank);
  MPI_Comm_size(local, &s->local_size);
  MPI_Comm_free(&local);
  s->check_votes[0] = check ? 1 : 0;
  s->check_votes[1] = check ? 0 : 1;
  return step("MPI_Allreduce",
              MPI_Allreduce(MPI_IN_PLACE, s->check_votes, 2, MPI_INT, MPI_SUM, s->comm));
}

// A DistributedError for set-up work that did not end within `timeout_seconds`, the bound
// that `source` (an option and its variable) sets.
DistributedError setup_timeout(const char* what, double timeout_seconds, const char* source) {
  return DistributedError(fmt::format(
      "init_process_group: {} did not complete within {} s ({}): a peer process has not "
      "joined: it exited or was killed before init_process_group (under mpirun "
      "--enable-recovery), or is stuck before it; a later init_process_group waits up to its "
      "timeout for that call to complete, else end the process and restart the job",
      what, timeout_seconds, source));
}

constexpr const char* kInitTimeoutSource =
    "the start-up timeout, ProcessGroupOptions::init_timeout_seconds, "
    "HETERO_DISTRIBUTED_INIT_TIMEOUT";
constexpr const char* kGroupTimeoutSource = "the group's timeout, HETERO_DISTRIBUTED_TIMEOUT";

}  // namespace

std::unique_ptr<Group> make_group(MPI_Comm comm, const ProcessGroupOptions& options,
                                  int thread_level, bool free_parent, bool start_up) {
  auto g = std::make_unique<Group>();
  g->options = options;
  // No wait for abandoned threads here: init_process_group() waited before MPI start-up, and
  // new_group() runs its split on the world group's thread, which is refused once abandoned.
  if (g->options.timeout_seconds > 0 && thread_level >= MPI_THREAD_SERIALIZED)
    g->thread = shared_comm_thread();
  // The set-up is collective: on the communication thread, under a deadline (issue #29: a
  // rank that never called init_process_group hung the others forever): init's start-up
  // timeout, or new_group's collective one (issue #48).
  const double limit = start_up ? g->options.init_timeout_seconds : g->options.timeout_seconds;
  std::shared_ptr<CommThread> thread = g->thread;
  if (!thread && start_up && limit > 0 && thread_level >= MPI_THREAD_SERIALIZED)
    thread = shared_comm_thread();  // for the set-up only: collectives run on the caller
  auto s = std::make_shared<SetUp>();
  const bool check = g->options.check_consistency;
  int rc = MPI_SUCCESS;
  if (thread && limit > 0) {
    const auto result =
        thread->run([comm, check, free_parent, s] { return set_up(comm, check, free_parent, s); },
                    std::chrono::duration<double>(limit));
    if (!result) {
      CommThread::abandon(thread);  // inside MPI for good: leaked with `s`
      g->thread.reset();
      throw setup_timeout("the process group's set-up (MPI_Comm_dup of the communicator)", limit,
                          start_up ? kInitTimeoutSource : kGroupTimeoutSource);
    }
    rc = *result;
  } else {
    rc = set_up(comm, check, free_parent, s);
  }
  if (rc != MPI_SUCCESS) {
    if (s->comm != MPI_COMM_NULL) MPI_Comm_free(&s->comm);
    throw setup_error(s->step, rc);
  }
  g->comm = s->comm;
  g->rank = s->rank;
  g->size = s->size;
  g->local_rank = s->local_rank;
  g->local_size = s->local_size;
  const auto [asked, declined] = s->check_votes;
  if (asked > 0 && declined > 0) {
    g->options.check_consistency = true;
    log_message(LogLevel::warn,
                fmt::format("rank {} of {}: HETERO_DISTRIBUTED_CHECK differs between ranks ({} "
                            "on, {} off): the consistency check is on for every rank",
                            g->rank, g->size, asked, declined));
  }
  g->nan_ops.create();
  static std::uint64_t groups_made = 0;
  g->id = ++groups_made;
  live_groups()[g->id] = g.get();
  return g;
}

Group* find_group(std::uint64_t id) noexcept {
  const auto it = live_groups().find(id);
  return it == live_groups().end() ? nullptr : it->second;
}

namespace {

void start(MPI_Comm comm, const ProcessGroupOptions& options, int thread_level) {
  current_group =
      make_group(comm, options, thread_level, /*free_parent=*/false, /*start_up=*/true).release();
}

// Initialises MPI (MPI_THREAD_SERIALIZED) for init_process_group(). With a start-up
// timeout, on a thread of its own under that deadline (issue #29: MPI_Init_thread waits for
// every process of the job; one killed before it, under mpirun --enable-recovery, hung the
// others forever); that thread also finalises MPI at exit (MPI's "should be the thread
// that initialised it"). Returns the thread level MPI provides.
int start_mpi(double timeout_seconds) {
  static bool at_exit_registered = false;
  if (!at_exit_registered) {
    std::atexit(finalize_at_exit);
    at_exit_registered = true;
  }
  hetero_initialised_mpi = true;  // also when it completes late, after a timeout
  if (!(timeout_seconds > 0)) {
    int level = MPI_THREAD_SINGLE;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &level), "MPI_Init_thread");
    return level;
  }
  // Leaked: it stays for MPI_Finalize, and after a timeout it is inside MPI for good.
  mpi_thread = new CommThread;
  auto level = std::make_shared<int>(MPI_THREAD_SINGLE);
  const auto rc = mpi_thread->run(
      [level] { return MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, level.get()); },
      std::chrono::duration<double>(timeout_seconds));
  if (!rc) {
    mpi_thread->abandon();
    throw setup_timeout("MPI_Init_thread", timeout_seconds, kInitTimeoutSource);
  }
  check(*rc, "MPI_Init_thread");
  // MPI_THREAD_SERIALIZED lets any thread call MPI, one at a time: the caller goes on.
  return *level;
}

Group& existing(const char* op) {
  if (current_group == nullptr)
    throw DistributedError(
        fmt::format("{}: no process group: call hetero::distributed::init_process_group() first "
                    "(and start the program with mpirun)",
                    op));
  return *current_group;
}

}  // namespace

Group& group(const char* op, Group* target) {
  Group& g = target ? *target : existing(op);
  if (!g.broken.empty()) throw g.error(op, "the process group is unusable: " + g.broken);
  ++g.calls;
  return g;
}

namespace {
Group& acquire(const char* op, bool new_call, Group* target) {
  Group& g = target ? *target : existing(op);
  std::thread::id none{};
  const std::thread::id me = std::this_thread::get_id();
  if (!g.user.compare_exchange_strong(none, me)) {
    if (none != me)
      throw g.error(op,
                    "another thread of this process is inside a collective of the process "
                    "group; call a group's collectives from one thread at a time (their order "
                    "must be the same on every rank, which two threads cannot promise)");
  }
  ++g.user_depth;
  if (!new_call) return g;
  try {
    return group(op, &g);
  } catch (...) {
    if (--g.user_depth == 0) g.user.store(std::thread::id{});
    throw;
  }
}
}  // namespace

GroupUse::GroupUse(const char* op, bool new_call, Group* target)
    : group(acquire(op, new_call, target)) {}
GroupUse::~GroupUse() {
  if (--group.user_depth == 0) group.user.store(std::thread::id{});
}

bool used_by_another_thread(const Group& g) noexcept {
  const std::thread::id user = g.user.load();
  return user != std::thread::id{} && user != std::this_thread::get_id();
}

}  // namespace detail

void init_process_group(const ProcessGroupOptions& options) {
  if (detail::current_group != nullptr)
    throw DistributedError(
        "init_process_group: this process already has a process group; destroy_process_group() "
        "first");
  const ProcessGroupOptions o = detail::with_environment(options);
  // A late MPI_Init_thread of an earlier timed-out call may complete meanwhile.
  detail::wait_for_abandoned_threads(o.timeout_seconds);
  int initialized = 0, finalized = 0, level = MPI_THREAD_SINGLE;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    throw DistributedError(
        "init_process_group: MPI was finalised in this process and cannot start again");
  if (!initialized)
    level = detail::start_mpi(o.init_timeout_seconds);
  else
    MPI_Query_thread(&level);
  detail::start(MPI_COMM_WORLD, o, level);
}

void init_process_group(MPI_Comm comm, const ProcessGroupOptions& options) {
  if (detail::current_group != nullptr)
    throw DistributedError(
        "init_process_group: this process already has a process group; destroy_process_group() "
        "first");
  int initialized = 0, level = MPI_THREAD_SINGLE;
  MPI_Initialized(&initialized);
  if (!initialized) throw DistributedError("init_process_group(MPI_Comm): MPI is not initialised");
  MPI_Query_thread(&level);
  detail::start(comm, detail::with_environment(options), level);
}

namespace detail {
namespace {
// A new_group() group, destroyed with the default group (issue #50 item 6): its calls
// still queued complete (or time out) first, as the default group's; then it is
// unusable, and a Work launched on it says its group was destroyed, as the default
// group's do.
void destroy_subgroup(Group& s) noexcept {
  live_groups().erase(s.id);
  if (!used_by_another_thread(s)) {  // else left to that thread, as retire() does
    release_mpi_objects(s);
    s.released = s.broken.empty();
    if (s.released) s.staging.clear();
  }
  if (s.broken.empty())
    s.broken =
        "destroy_process_group() destroyed it with the default group (as torch's destroys "
        "every group); after init_process_group(), make it again with new_group()";
  s.destroyed = true;
}
}  // namespace
}  // namespace detail

void destroy_process_group() noexcept {
  detail::Group* g = detail::current_group;
  if (g == nullptr) return;
  std::vector<detail::Group*> subgroups;
  for (const auto& [id, other] : detail::live_groups())
    if (other != g) subgroups.push_back(other);
  for (detail::Group* s : subgroups) detail::destroy_subgroup(*s);
  detail::current_group = nullptr;
  detail::retire(g);
}

namespace detail {
void retire(Group* g) noexcept {
  live_groups().erase(g->id);
  if (g->destroyed) {  // a subgroup destroy_process_group() destroyed: its last handle went
    if (g->released)
      delete g;
    else
      abandon(g);
    return;
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) {  // a group outliving MPI (a static handle): nothing to free any more
    abandon(g);
    return;
  }
  if (used_by_another_thread(*g)) {
    // Another thread is inside one of its collectives: left to it, MPI objects and all
    // (as a timed-out group), rather than freed under it.
    abandon(g);
    return;
  }
  release_mpi_objects(*g);
  const bool stuck = !g->broken.empty();
  g->staging.clear();
  if (stuck)
    abandon(g);  // its thread may still write into its buffers
  else
    delete g;
}
}  // namespace detail

bool is_initialized() noexcept { return detail::current_group != nullptr; }

int rank() { return detail::existing("rank").rank; }
int world_size() { return detail::existing("world_size").size; }
int local_rank() { return detail::existing("local_rank").local_rank; }
int local_world_size() { return detail::existing("local_world_size").local_size; }

namespace {
std::shared_ptr<detail::WorkState> barrier_launch(detail::Group* target) {
  const detail::GroupUse use("barrier", true, target);
  detail::Group& g = use.group;
  // Checked as the other collectives (issue #29: a barrier facing peers in all_reduce waited
  // out the whole timeout instead of saying they disagree).
  return detail::launch_work(
      g, {"barrier", nullptr}, [comm = g.comm] { return MPI_Barrier(comm); }, {}, [] {});
}
}  // namespace

void barrier() {
  const detail::GroupUse hold("barrier", /*new_call=*/false);
  Work(barrier_launch(nullptr)).wait();
}

Work barrier(AsyncOp) { return Work(barrier_launch(nullptr)); }

void ProcessGroup::barrier() {
  detail::Group* g = member("barrier");
  const detail::GroupUse hold("barrier", /*new_call=*/false, g);
  Work(barrier_launch(g)).wait();
}

Work ProcessGroup::barrier(AsyncOp) { return Work(barrier_launch(member("barrier"))); }

}  // namespace hetero::distributed
