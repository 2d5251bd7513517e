// SPDX-License-Identifier: Apache-2.0
// The profiler's recording, Chrome trace writer and summary (<hetero/profiler.hpp>).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <hetero/config.hpp>
#include <hetero/error.hpp>
#include <hetero/profiler.hpp>

#include "backend_calls.hpp"
#include "log.hpp"
#include "profiler_record.hpp"
#include "serialize/atomic_file.hpp"

namespace hetero {
namespace detail::prof {

std::atomic<bool> g_recording{false};

namespace {

using Clock = std::chrono::steady_clock;

// Note [Profiling kernels]: recording adds no waits. A kernel's or copy's scope brackets
// its work with two device timestamps (Backend::record_timestamp) and hands them here
// unresolved. A stream runs its work in the order queued and a stream's scopes end in
// that order, so each lane's pending timestamps complete front to back: every new one
// resolves the completed front of its lane (Event::query, which never blocks), and stop()
// waits for the rest. A lane's first resolved start timestamp is its anchor, placed at its
// event's host start; the others are placed by their device time after it. The pending
// entries keep their plugin (and so the backend that made the timestamps) alive.
struct Pending {
  std::size_t event = 0;  // index in Recorder::events
  std::shared_ptr<LoadedPlugin> plugin;
  std::shared_ptr<Event> start;
  std::unique_ptr<Event> end;
};
struct Lane {
  std::string name;  // "cuda:0 stream 0" (Device::str, then the stream number)
  std::deque<Pending> pending;
  std::shared_ptr<Event> anchor;  // the first resolved start timestamp
  double anchor_host_us = 0;      // its event's host start
};

struct Recorder {
  std::mutex mutex;
  Clock::time_point origin = Clock::now();
  std::vector<profiler::Event> events;
  std::unordered_map<std::thread::id, std::uint32_t> threads;
  // Device lanes by stream (address) and device; streams numbered per device.
  std::map<std::pair<const Stream*, std::string>, Lane> lanes;
  std::map<std::string, int> streams_per_device;
  // Note [Bounded recording] (issue #44: 2.1M events took 6.65 GB while the trace was
  // written): at most `limit` events are kept; later ones are counted, not kept, and stop()
  // says how many were dropped.
  std::size_t limit = 0;
  std::size_t dropped = 0;
};
Recorder& recorder() {
  static auto* r = new Recorder;  // never destroyed: events may come at exit
  return *r;
}

}  // namespace

double now_us() noexcept {
  return std::chrono::duration<double, std::micro>(Clock::now() - recorder().origin).count();
}

namespace {

// Appends `e` (its thread filled in) unless the recording is off or full; its index, or
// none. Called with r.mutex held.
std::optional<std::size_t> push(Recorder& r, profiler::Event&& e) {
  if (!recording()) return std::nullopt;
  const auto [it, fresh] =
      r.threads.emplace(std::this_thread::get_id(), static_cast<std::uint32_t>(r.threads.size()));
  e.thread = it->second;
  if (r.events.size() >= r.limit) {
    ++r.dropped;
    return std::nullopt;
  }
  r.events.push_back(std::move(e));
  return r.events.size() - 1;
}

// Gives events[p.event] its device time and place from p's completed timestamps (nothing
// where the backend cannot measure them, e.g. after the work failed).
void resolve(std::vector<profiler::Event>& events, Lane& lane, const Pending& p) noexcept {
  try {
    profiler::Event& e = events[p.event];
    const std::optional<double> seconds = calls::elapsed_seconds(*p.plugin, *p.start, *p.end);
    if (!seconds || *seconds < 0) return;
    if (!lane.anchor) {
      lane.anchor = p.start;
      lane.anchor_host_us = e.start_us;
    }
    const std::optional<double> offset = calls::elapsed_seconds(*p.plugin, *lane.anchor, *p.start);
    if (!offset) return;
    e.device_duration_us = *seconds * 1e6;
    e.device_start_us = lane.anchor_host_us + *offset * 1e6;
    e.lane = lane.name;
  } catch (...) {  // a string or vector allocation
  }
}

// Resolves the front of `lane` while its end timestamps have completed; never blocks.
void resolve_completed(std::vector<profiler::Event>& events, Lane& lane) noexcept {
  while (!lane.pending.empty()) {
    Pending& p = lane.pending.front();
    try {
      if (!p.end->query()) return;
      resolve(events, lane, p);
    } catch (...) {  // the work failed: no device time
    }
    lane.pending.pop_front();
  }
}

}  // namespace

void add(profiler::Event e) noexcept {
  try {
    Recorder& r = recorder();
    std::lock_guard lock(r.mutex);
    push(r, std::move(e));
  } catch (...) {
  }
}

void add_timed(profiler::Event e, const Storage& on, std::unique_ptr<Event> start,
               std::unique_ptr<Event> end) noexcept {
  try {
    Recorder& r = recorder();
    std::lock_guard lock(r.mutex);
    const std::string device = e.device;
    const auto index = push(r, std::move(e));
    if (!index) return;
    const auto [it, fresh] = r.lanes.try_emplace({&on.stream(), device});
    Lane& lane = it->second;
    if (fresh) lane.name = device + " stream " + std::to_string(r.streams_per_device[device]++);
    lane.pending.push_back({*index, on.plugin, std::move(start), std::move(end)});
    resolve_completed(r.events, lane);
  } catch (...) {
  }
}

std::string shape_of(const StridedView& v) {
  std::string s = "[";
  for (int d = 0; d < v.ndim; ++d) s += (d ? ", " : "") + std::to_string(v.shape[d]);
  return s + "]";
}

Scope::Scope(const char* category, std::string_view name, const Storage* storage,
             const StridedView* out, std::uint64_t bytes) noexcept {
  if (!recording()) return;
  try {
    event_.emplace();
    storage_ = storage;
    event_->category = category;
    event_->name = std::string(name);
    if (storage != nullptr) event_->device = storage->device.str();
    if (out != nullptr) {
      event_->shape = shape_of(*out);
      event_->dtype = std::string(dtype_name(out->dtype));
    }
    event_->bytes = bytes;
    // The host's clock first: the device's span then lies within the host's (a stamp taken
    // inline on an idle queue reads the clock at once).
    event_->start_us = now_us();
    if (storage != nullptr) device_start_ = calls::record_timestamp(*storage);
  } catch (...) {
    event_.reset();
  }
}

Scope::Scope(std::string_view op, const Tensor& operand) noexcept {
  if (!recording()) return;
  try {
    event_.emplace();
    event_->category = "op";
    event_->name = std::string(op);
    describe(operand);
    event_->start_us = now_us();
  } catch (...) {
    event_.reset();
  }
}

void Scope::describe(const Tensor& t) noexcept {
  if (!event_ || !t.defined()) return;
  try {
    event_->device = t.device().str();
    std::string s = "[";
    for (std::size_t d = 0; d < t.shape().size(); ++d)
      s += (d ? ", " : "") + std::to_string(t.shape()[d]);
    event_->shape = s + "]";
    event_->dtype = std::string(dtype_name(t.dtype()));
  } catch (...) {  // the event keeps what it had
  }
}

Scope::~Scope() {
  if (!event_) return;
  std::unique_ptr<Event> device_end;
  if (device_start_) device_end = calls::record_timestamp(*storage_);
  event_->duration_us = now_us() - event_->start_us;
  if (device_start_ && device_end)
    add_timed(std::move(*event_), *storage_, std::move(device_start_), std::move(device_end));
  else
    add(std::move(*event_));
}

}  // namespace detail::prof

namespace profiler {

void start() {
  auto& r = detail::prof::recorder();
  std::lock_guard lock(r.mutex);
  r.events.clear();
  r.threads.clear();
  r.lanes.clear();
  r.streams_per_device.clear();
  r.limit = max_events();
  r.dropped = 0;
  r.origin = std::chrono::steady_clock::now();
  detail::prof::g_recording.store(true);
}

std::vector<Event> stop() {
  auto& r = detail::prof::recorder();
  std::vector<Event> out;
  std::map<std::pair<const Stream*, std::string>, detail::prof::Lane> lanes;
  std::size_t dropped = 0, limit = 0;
  {
    std::lock_guard lock(r.mutex);
    detail::prof::g_recording.store(false);
    out = std::move(r.events);
    r.events.clear();
    lanes = std::move(r.lanes);
    r.lanes.clear();
    r.streams_per_device.clear();
    dropped = std::exchange(r.dropped, 0);
    limit = r.limit;
  }
  // The device timestamps still pending, waited for (outside the lock: the work may take a
  // while, and other threads may record meanwhile into a new recording).
  for (auto& [key, lane] : lanes)
    for (const detail::prof::Pending& p : lane.pending) {
      try {
        p.end->synchronize();
      } catch (...) {  // the work failed: no device time (the error surfaces to its caller)
        continue;
      }
      detail::prof::resolve(out, lane, p);
    }
  if (dropped > 0)  // outside the lock: a log callback may use the profiler
    detail::log_warn(fmt::format(
        "profiler: {} events were dropped past the first {} (HETERO_PROFILE_MAX_EVENTS); "
        "record a shorter span or raise the maximum",
        dropped, limit));
  // By start, and a containing span before what it contains (longer first on a tie).
  std::stable_sort(out.begin(), out.end(), [](const Event& a, const Event& b) {
    if (a.start_us != b.start_us) return a.start_us < b.start_us;
    return a.duration_us > b.duration_us;
  });
  return out;
}

bool is_recording() noexcept { return detail::prof::recording(); }

std::size_t max_events() {
  return static_cast<std::size_t>(config::integer("HETERO_PROFILE_MAX_EVENTS", 1 << 21));
}

void write_chrome_trace(const std::vector<Event>& events, const std::string& path) {
  // Streamed, one event at a time through a 1 MiB buffer (issue #44: one JSON document of
  // every event took ~3 KB per event, 6.65 GB for 2.1M), as save() writes: a unique
  // temporary beside the target, a non-regular target (FIFO, device: as root /dev/full was
  // replaced) refused, a symlink written through, errors with their errno.
  try {
    detail::AtomicFile file(path);
    std::string buffer;
    constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
    bool first = true;
    auto put = [&](const nlohmann::json& event) {
      buffer += first ? "\n" : ",\n";
      first = false;
      buffer += event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      if (buffer.size() >= kFlushBytes) {
        file.write(buffer.data(), buffer.size());
        buffer.clear();
      }
    };
    buffer = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [";
    std::map<std::uint32_t, bool> threads;
    std::map<std::string, std::size_t> lanes;  // device tracks (pid 1), numbered by name
    for (const Event& e : events)
      if (e.device_start_us >= 0 && !e.lane.empty()) lanes.emplace(e.lane, lanes.size());
    for (const Event& e : events) {
      threads[e.thread] = true;
      nlohmann::json args = nlohmann::json::object();
      if (!e.device.empty()) args["device"] = e.device;
      if (!e.shape.empty()) args["shape"] = e.shape;
      if (!e.dtype.empty()) args["dtype"] = e.dtype;
      if (e.bytes != 0) args["bytes"] = e.bytes;
      if (e.device_duration_us >= 0) args["device_dur_us"] = e.device_duration_us;
      put({{"name", e.name},
           {"cat", e.category},
           {"ph", "X"},
           {"ts", e.start_us},
           {"dur", e.duration_us},
           {"pid", 0},
           {"tid", e.thread},
           {"args", args}});
      if (e.device_start_us >= 0 && !e.lane.empty())
        put({{"name", e.name},
             {"cat", e.category},
             {"ph", "X"},
             {"ts", e.device_start_us},
             {"dur", e.device_duration_us},
             {"pid", 1},
             {"tid", lanes.at(e.lane)},
             {"args", args}});
    }
    // The track names: pid 0 the host threads, pid 1 the device streams (when any ran).
    const auto name_track = [&](const char* what, int pid, std::optional<std::int64_t> tid,
                                const std::string& name) {
      nlohmann::json m = {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
      if (tid) m["tid"] = *tid;
      put(m);
    };
    name_track("process_name", 0, std::nullopt, "hetero");
    for (const auto& [t, unused] : threads)
      name_track("thread_name", 0, t, fmt::format("host thread {}", t));
    if (!lanes.empty()) name_track("process_name", 1, std::nullopt, "devices");
    for (const auto& [name, tid] : lanes) name_track("thread_name", 1, tid, name);
    buffer += "\n]}\n";
    file.write(buffer.data(), buffer.size());
    file.commit();
  } catch (const Error& e) {
    throw Error(std::string("profiler: ") + e.what());
  }
}

namespace {
// Each event's self time: its duration less its direct children's, the events of its
// thread that start inside it (a thread's events nest: an op holds its kernels and the
// ops it calls, a range what runs in it). Indexed as `events`.
std::vector<double> self_times(const std::vector<Event>& events) {
  std::vector<std::size_t> order(events.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Event &x = events[a], &y = events[b];
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.start_us != y.start_us) return x.start_us < y.start_us;
    return x.duration_us > y.duration_us;  // the enclosing one first
  });
  std::vector<double> self(events.size());
  std::vector<std::size_t> open;  // the enclosing events of the current one, innermost last
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    const Event& e = events[i];
    if (k > 0 && events[order[k - 1]].thread != e.thread) open.clear();
    while (!open.empty()) {
      const Event& o = events[open.back()];
      if (e.start_us < o.start_us + o.duration_us) break;
      open.pop_back();
    }
    self[i] = e.duration_us;
    if (!open.empty()) self[open.back()] -= e.duration_us;
    open.push_back(i);
  }
  for (double& t : self) t = std::max(t, 0.0);  // clock granularity
  return self;
}
}  // namespace

std::string summary(const std::vector<Event>& events, std::size_t top) {
  struct Row {
    std::string category, name;
    std::size_t count = 0;
    double total = 0, self = 0, device = 0;
    bool timed = false;  // some event has device time
  };
  std::map<std::pair<std::string, std::string>, Row> rows;
  double span = 0, all_self = 0;
  const std::vector<double> self = self_times(events);
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    Row& r = rows[{e.category, e.name}];
    r.category = e.category;
    r.name = e.name;
    ++r.count;
    r.total += e.duration_us;
    r.self += self[i];
    if (e.device_duration_us >= 0) {
      r.device += e.device_duration_us;
      r.timed = true;
    }
    all_self += self[i];
    span = std::max(span, e.start_us + e.duration_us);
  }
  std::vector<Row> sorted;
  for (auto& [key, r] : rows) sorted.push_back(r);
  std::sort(sorted.begin(), sorted.end(),
            [](const Row& a, const Row& b) { return a.total > b.total; });
  if (sorted.size() > top) sorted.resize(top);
  std::string out =
      fmt::format("{:<8} {:<24} {:>8} {:>14} {:>12} {:>14} {:>14} {:>11}\n", "kind", "name",
                  "calls", "total (us)", "mean (us)", "device (us)", "self (us)", "self share");
  for (const Row& r : sorted)
    out += fmt::format("{:<8} {:<24} {:>8} {:>14.1f} {:>12.2f} {:>14} {:>14.1f} {:>10.1f}%\n",
                       r.category, r.name, r.count, r.total, r.total / static_cast<double>(r.count),
                       r.timed ? fmt::format("{:.1f}", r.device) : std::string("-"), r.self,
                       all_self > 0 ? 100.0 * r.self / all_self : 0.0);
  out += fmt::format(
      "{} events over {:.1f} us; total and self are host times (self excludes nested events: an "
      "op's kernels and the ops it calls, so the self shares of all rows add up to 100%); "
      "device is the kernels' and copies' time on their devices\n",
      events.size(), span);
  return out;
}

Range::Range(std::string name) : name_(std::move(name)) {
  if (detail::prof::recording()) start_us_ = detail::prof::now_us();
}

Range::~Range() {
  if (start_us_ < 0) return;
  Event e;
  e.name = name_;
  e.category = "range";
  e.start_us = start_us_;
  e.duration_us = detail::prof::now_us() - start_us_;
  detail::prof::add(std::move(e));
}

Session::Session(std::string path) : path_(std::move(path)) { start(); }

const std::vector<Event>& Session::events() {
  if (!stopped_) {
    events_ = stop();
    stopped_ = true;
  }
  return events_;
}

Session::~Session() {
  events();
  if (path_.empty()) return;
  try {
    write_chrome_trace(events_, path_);
  } catch (const std::exception& e) {
    detail::log_warn(e.what());
  }
}

}  // namespace profiler

namespace detail::prof {

// HETERO_PROFILE=path: record from the first use of hetero to exit (registry.cpp calls
// this once, when it first looks for plugins).
void start_from_environment() noexcept {
  try {
    const auto path = config::raw("HETERO_PROFILE");
    // A directory is refused now (the environment check has said so, "the default applies"),
    // not after a whole run has been recorded for a write that cannot succeed.
    if (!path || !config::problem(*config::find("HETERO_PROFILE"), *path).empty()) return;
    // Resolved now, so that a chdir() before exit does not move the trace, and said, so
    // that a relative name does not land in the working directory without a word.
    std::error_code ec;
    std::filesystem::path where = std::filesystem::absolute(*path, ec);
    if (ec) where = *path;
    static std::string* target = new std::string(where.string());
    if (!std::filesystem::path(*path).is_absolute())
      log_warn("HETERO_PROFILE='" + *path + "' is relative: the trace will be written to " +
               *target + " at exit");
    profiler::start();
    std::atexit([] {
      try {
        const auto events = profiler::stop();
        profiler::write_chrome_trace(events, *target);
        log_info("profile written to " + *target + ":\n" + profiler::summary(events));
      } catch (const std::exception& e) {
        log_warn(std::string("HETERO_PROFILE: ") + e.what());
      }
    });
  } catch (...) {
  }
}

}  // namespace detail::prof
}  // namespace hetero
