// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file log.hpp
/// hetero's log: messages with a level, printed to stderr as "[hetero] warn: ..." or handed
/// to a callback the application installs (as ggml_log_set / llama_log_set). The level
/// starts from HETERO_LOG (error, warn, info or debug; default warn: malformed or unknown
/// HETERO_* variables are said, not ignored), and set_log_level() changes it.
#include <functional>
#include <string_view>

#include <hetero/export.hpp>

namespace hetero {

/// Severity, most severe first.
enum class LogLevel { error, warn, info, debug };

/// "error", "warn", "info", "debug".
HETERO_API std::string_view log_level_name(LogLevel level) noexcept;

/// Receives each message at or above the level (the message without a prefix or newline).
/// Called from whichever thread logs, one message at a time (hetero serialises calls). It
/// may log (those messages go to stderr, not back into it) and may call set_log_callback()
/// (applies from the next message); it must not wait for another thread that logs (that
/// thread waits for this call to return). An exception it throws loses its message.
using LogCallback = std::function<void(LogLevel level, std::string_view message)>;

/// Installs `callback` for every later message; an empty one restores the default (stderr).
/// Thread-safe.
HETERO_API void set_log_callback(LogCallback callback);
/// Messages less severe than `level` are dropped. Thread-safe.
HETERO_API void set_log_level(LogLevel level) noexcept;
/// The current level (HETERO_LOG until set_log_level()).
HETERO_API LogLevel log_level() noexcept;
/// Logs `message` at `level` through hetero's log (dropped below the current level), for
/// the libraries built on the core (hetero::distributed) and applications that want their
/// messages beside hetero's. Thread-safe; never throws.
HETERO_API void log_message(LogLevel level, std::string_view message) noexcept;

}  // namespace hetero
