// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file profiler.hpp
/// hetero::profiler — a trace of what hetero did, as torch.profiler: the ops of the API
/// (conv2d, matmul, softmax, the element-wise and reduction ops, views such as view, reshape
/// and narrow, factories such as zeros, rand and arange, ...; nested where one is built from
/// others, as aten:: events), every kernel, copy, allocation and host wait,
/// with its device, shape, dtype, bytes and duration, plus the
/// application's own named ranges (Range, as torch.profiler.record_function), written as
/// Chrome trace JSON (chrome://tracing, ui.perfetto.dev) and summarised as a table of the
/// ops by total time (as key_averages().table()).
///
/// How durations are measured (Note [Profiling kernels]): recording adds no waits. A
/// kernel's or copy's host span is the time the host spent issuing it (with the work itself
/// where the backend runs it inline); where the backend keeps device timestamps
/// (Backend::record_timestamp: cuda events, the cpu queue's clock) two of them bracket the
/// work on its stream, and when they have completed (checked without blocking as later
/// events come, waited for at stop()) they give the event's device time and its place on the
/// device's timeline (device_start_us, device_duration_us, lane). The trace then has one
/// track per host thread and one per device stream, as torch.profiler's CPU and CUDA rows.
/// The events of one host thread never partly overlap (ranges contain the kernels they
/// issue). Not recording costs one relaxed atomic load per kernel.
///
/// HETERO_PROFILE=trace.json records from the first use of hetero to the process's exit
/// and writes the trace there (and the summary to the log, at info level). A relative path
/// is resolved against the working directory at the first use, and a warning says where
/// the trace will go.
#include <cstdint>
#include <string>
#include <vector>

#include <hetero/export.hpp>

namespace hetero::profiler {

/// One recorded event: a complete span on one host thread.
struct Event {
  std::string name;         ///< a range's name; the op ("conv2d", "exp") or kernel ("gemm")
  std::string category;     ///< "op", "range", "kernel", "copy", "alloc" or "sync"
  std::string device;       ///< "cpu:0", "cuda:1"; empty for a range
  std::string shape;        ///< a kernel's output shape, an op's first operand's ("[2, 3]")
  std::string dtype;        ///< a kernel's output dtype, an op's first operand's
  std::uint64_t bytes = 0;  ///< copies and allocations
  double start_us = 0;      ///< microseconds since the recording started
  double duration_us = 0;   ///< microseconds
  /// A kernel's or copy's device time in microseconds, from two device timestamps around
  /// it on its stream (Backend::record_timestamp: cuda events, the cpu queue's clock); -1
  /// where the backend keeps none or the work failed. Written to the trace as
  /// args.device_dur_us.
  double device_duration_us = -1;
  std::uint32_t thread = 0;  ///< host thread, numbered from 0 in order of first event
  /// Where the work began on its device's timeline, in microseconds since the recording
  /// started: the stream's earliest recorded event is placed at its host start, and the
  /// others by their device time after it (exact on the cpu queue, whose timestamps read
  /// the host's clock; on a GPU the first event of each stream may have waited for earlier
  /// work, so the track can sit late by that wait). -1 where device_duration_us is -1.
  double device_start_us = -1;
  /// The device stream the work ran on ("cuda:0 stream 0"; streams numbered per device in
  /// order of first event): the trace's device track. Empty where device_start_us is -1.
  std::string lane;
};

/// Starts recording (clearing what an earlier recording kept). Thread-safe. At most
/// max_events() events are kept (about 200 bytes each: ~400 MB at the default); later
/// ones are dropped and counted.
HETERO_API void start();
/// Stops recording and returns the events, sorted by start time, after waiting for the
/// device timestamps still pending (work that fails leaves its event without device time);
/// logs a warning saying how many were dropped past max_events(), if any. Thread-safe.
HETERO_API std::vector<Event> stop();
/// The most events one recording keeps: HETERO_PROFILE_MAX_EVENTS, default 2^21
/// (2,097,152), read when recording starts.
HETERO_API std::size_t max_events();
/// Whether a recording is on.
HETERO_API bool is_recording() noexcept;

/// Writes `events` as Chrome trace JSON ({"traceEvents": [...]}: complete events "ph": "X"
/// with ts/dur in microseconds, one track per host thread under the process "hetero" and,
/// for each event with device time, its span on its lane's track under the process
/// "devices"; device/shape/dtype/bytes in "args") to `path`, atomically as save() writes: a unique
/// temporary file beside it, renamed over it (nothing is left on failure; concurrent writers each
/// succeed, the last rename wins); a symlink is written through. Throws Error naming the path and
/// the OS's reason when it cannot be written, and when `path` exists but is not a regular file (a
/// device, FIFO or directory is never replaced).
HETERO_API void write_chrome_trace(const std::vector<Event>& events, const std::string& path);
/// A table of the `top` names with the most total time, per category: count, total, mean,
/// device time (the sum of device_duration_us, "-" where no event has one), self time (the total
/// less the events nested in each: an op's kernels and the ops it calls, on its thread) and self
/// share (of all events' self time, so the shares of all rows add up to 100%), as torch.profiler's
/// key_averages().table() with its self columns.
HETERO_API std::string summary(const std::vector<Event>& events, std::size_t top = 15);

/// A named span of the application's own (as torch.profiler.record_function): recorded,
/// with what runs inside it, while a recording is on; nothing otherwise.
class HETERO_API Range {
 public:
  /// Opens the span `name` (closed by the destructor).
  explicit Range(std::string name);
  ~Range();
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;

 private:
  std::string name_;
  double start_us_ = -1;
};

/// Records for its scope and, when `path` is not empty, writes the trace there at the end
/// (errors go to the log: a destructor does not throw). events() gives what it recorded.
class HETERO_API Session {
 public:
  /// Starts recording (see the class comment for `path`).
  explicit Session(std::string path = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  /// Stops the recording (if this session's is still on) and returns its events.
  const std::vector<Event>& events();

 private:
  std::string path_;
  std::vector<Event> events_;
  bool stopped_ = false;
};

}  // namespace hetero::profiler
