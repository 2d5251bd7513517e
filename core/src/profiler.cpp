// SPDX-License-Identifier: Apache-2.0
// The profiler's recording, Chrome trace writer and summary (<hetero/profiler.hpp>).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
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

struct Recorder {
  std::mutex mutex;
  Clock::time_point origin = Clock::now();
  std::vector<profiler::Event> events;
  std::unordered_map<std::thread::id, std::uint32_t> threads;
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

void add(profiler::Event e) noexcept {
  try {
    Recorder& r = recorder();
    std::lock_guard lock(r.mutex);
    if (!recording()) return;
    const auto [it, fresh] =
        r.threads.emplace(std::this_thread::get_id(), static_cast<std::uint32_t>(r.threads.size()));
    e.thread = it->second;
    if (r.events.size() >= r.limit) {
      ++r.dropped;
      return;
    }
    r.events.push_back(std::move(e));
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
  try {
    if (device_start_) device_end = calls::record_timestamp(*storage_);
    if (storage_ != nullptr) storage_->stream().synchronize();
  } catch (...) {  // the kernel's error surfaces at the caller's next wait
  }
  event_->duration_us = now_us() - event_->start_us;
  if (device_start_ && device_end) {
    const double seconds = calls::elapsed_seconds(*storage_, *device_start_, *device_end);
    if (seconds >= 0) event_->device_duration_us = seconds * 1e6;
  }
  add(std::move(*event_));
}

}  // namespace detail::prof

namespace profiler {

void start() {
  auto& r = detail::prof::recorder();
  std::lock_guard lock(r.mutex);
  r.events.clear();
  r.threads.clear();
  r.limit = max_events();
  r.dropped = 0;
  r.origin = std::chrono::steady_clock::now();
  detail::prof::g_recording.store(true);
}

std::vector<Event> stop() {
  auto& r = detail::prof::recorder();
  std::vector<Event> out;
  std::size_t dropped = 0, limit = 0;
  {
    std::lock_guard lock(r.mutex);
    detail::prof::g_recording.store(false);
    out = std::move(r.events);
    r.events.clear();
    dropped = std::exchange(r.dropped, 0);
    limit = r.limit;
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
    }
    put({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", "hetero"}}}});
    for (const auto& [t, unused] : threads)
      put({{"name", "thread_name"},
           {"ph", "M"},
           {"pid", 0},
           {"tid", t},
           {"args", {{"name", fmt::format("host thread {}", t)}}}});
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
    double total = 0, self = 0;
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
    all_self += self[i];
    span = std::max(span, e.start_us + e.duration_us);
  }
  std::vector<Row> sorted;
  for (auto& [key, r] : rows) sorted.push_back(r);
  std::sort(sorted.begin(), sorted.end(),
            [](const Row& a, const Row& b) { return a.total > b.total; });
  if (sorted.size() > top) sorted.resize(top);
  std::string out = fmt::format("{:<8} {:<24} {:>8} {:>14} {:>12} {:>14} {:>11}\n", "kind", "name",
                                "calls", "total (us)", "mean (us)", "self (us)", "self share");
  for (const Row& r : sorted)
    out += fmt::format("{:<8} {:<24} {:>8} {:>14.1f} {:>12.2f} {:>14.1f} {:>10.1f}%\n", r.category,
                       r.name, r.count, r.total, r.total / static_cast<double>(r.count), r.self,
                       all_self > 0 ? 100.0 * r.self / all_self : 0.0);
  out += fmt::format(
      "{} events over {:.1f} us; self time excludes nested events (an op's kernels and the ops "
      "it calls), so the self shares of all rows add up to 100%\n",
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
    if (!path) return;
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
