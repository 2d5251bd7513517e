// SPDX-License-Identifier: Apache-2.0
#pragma once
// The core's side of <hetero/profiler.hpp>: the switch every kernel call tests, the clock,
// and the scope that times and records one event (Note [Profiling kernels]).
#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include <hetero/profiler.hpp>
#include <hetero/sdk/kernel_args.hpp>
#include <hetero/sdk/stream.hpp>
#include <hetero/tensor.hpp>

#include "storage.hpp"

namespace hetero::detail::prof {

extern std::atomic<bool> g_recording;

/// One relaxed load: the cost of profiling when it is off.
inline bool recording() noexcept { return g_recording.load(std::memory_order_relaxed); }
/// Microseconds since the recording started.
double now_us() noexcept;
/// Adds an event (thread and start filled in by the caller). Thread-safe; never throws.
void add(profiler::Event e) noexcept;
/// Adds an event with the two device timestamps that bracket its work on `on`'s stream;
/// its device time and place are filled in once they complete (Note [Profiling kernels]).
/// Thread-safe; never throws; never waits.
void add_timed(profiler::Event e, const Storage& on, std::unique_ptr<Event> start,
               std::unique_ptr<Event> end) noexcept;
/// HETERO_PROFILE: starts a recording written at exit (once, from registry.cpp).
void start_from_environment() noexcept;
/// "[2, 3]" of a view.
std::string shape_of(const StridedView& v);

/// Times its scope and records it as an event of `category` when a recording is on. With
/// `storage`, where the backend keeps device timestamps (Backend::record_timestamp), it
/// brackets the scope's work on the storage's stream with two, which the recorder resolves
/// into the event's device time and place once they complete (Note [Profiling kernels]);
/// it never waits for them.
class Scope {
 public:
  Scope(const char* category, std::string_view name, const Storage* storage = nullptr,
        const StridedView* out = nullptr, std::uint64_t bytes = 0) noexcept;
  /// An op of the public API (category "op", as torch.profiler's aten:: events): its span
  /// holds the kernels, copies and allocations it causes; device, shape and dtype are its
  /// first operand's (as record_shapes=True).
  Scope(std::string_view op, const Tensor& operand) noexcept;
  /// Gives the op's event the device, shape and dtype of `t` (a factory's result, which
  /// exists only at the end; as torch.profiler records aten::zeros' output shape).
  void describe(const Tensor& t) noexcept;
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  const Storage* storage_ = nullptr;
  std::optional<profiler::Event> event_;  // engaged while recording: nothing built when off
  std::unique_ptr<Event> device_start_;   // the device timestamp before the work, if any
};

}  // namespace hetero::detail::prof
