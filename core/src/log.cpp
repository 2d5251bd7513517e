// SPDX-License-Identifier: Apache-2.0
#include "log.hpp"

#include <atomic>
#include <iostream>
#include <memory>
#include <mutex>
#include <utility>

#include <hetero/config.hpp>

namespace hetero {
namespace {

// HETERO_LOG, read once; a malformed value is warned about by the environment check
// (environment_check.cpp) and leaves the default, warn.
LogLevel initial_level() noexcept {
  try {
    const auto v = config::raw("HETERO_LOG");
    if (!v) return LogLevel::warn;
    const std::string l = config::detail::lower(*v);
    if (l == "error") return LogLevel::error;
    if (l == "info") return LogLevel::info;
    if (l == "debug") return LogLevel::debug;
  } catch (...) {
  }
  return LogLevel::warn;
}

std::atomic<int>& level_store() noexcept {
  static std::atomic<int> level{static_cast<int>(initial_level())};
  return level;
}

// Note [Reentrant log callbacks] (issue #44: a callback that logged, or that installed a
// new callback, deadlocked on the one mutex held around the call). The callback is read
// under `mutex` and called under `calling`, a recursive mutex that only serialises the
// calls: set_log_callback() from inside a callback takes `mutex` alone and applies from the
// next message; a message logged from inside a callback (same thread) goes to stderr, not
// back into the callback (which would recurse without end).
struct Sink {
  std::mutex mutex;
  std::shared_ptr<const LogCallback> callback;
  std::recursive_mutex calling;
};
thread_local bool inside_callback = false;
Sink& sink() {
  static auto* s = new Sink;  // never destroyed: messages may come at exit
  return *s;
}

}  // namespace

std::string_view log_level_name(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::error:
      return "error";
    case LogLevel::warn:
      return "warn";
    case LogLevel::info:
      return "info";
    case LogLevel::debug:
      return "debug";
  }
  return "?";
}

void set_log_callback(LogCallback callback) {
  auto next = callback ? std::make_shared<const LogCallback>(std::move(callback)) : nullptr;
  Sink& s = sink();
  std::shared_ptr<const LogCallback> previous;  // destroyed outside the lock
  std::lock_guard lock(s.mutex);
  previous = std::exchange(s.callback, std::move(next));
}

void set_log_level(LogLevel level) noexcept {
  level_store().store(static_cast<int>(level), std::memory_order_relaxed);
}

LogLevel log_level() noexcept {
  return static_cast<LogLevel>(level_store().load(std::memory_order_relaxed));
}

namespace detail {

bool log_enabled(LogLevel level) noexcept {
  return static_cast<int>(level) <= level_store().load(std::memory_order_relaxed);
}

void log(LogLevel level, const std::string& message) noexcept {
  if (!log_enabled(level)) return;
  try {
    Sink& s = sink();
    std::shared_ptr<const LogCallback> callback;
    {
      std::lock_guard lock(s.mutex);
      callback = s.callback;
    }
    std::lock_guard calling(s.calling);
    if (callback && !inside_callback) {
      struct Inside {
        Inside() noexcept { inside_callback = true; }
        ~Inside() { inside_callback = false; }
      } inside;
      (*callback)(level, message);
    } else {
      std::cerr << "[hetero] " << log_level_name(level) << ": " << message << '\n';
    }
  } catch (...) {  // a callback that throws loses its message, not the caller's work
  }
}

}  // namespace detail

void log_message(LogLevel level, std::string_view message) noexcept {
  try {
    detail::log(level, std::string(message));
  } catch (...) {  // out of memory copying the message: dropped
  }
}
}  // namespace hetero
