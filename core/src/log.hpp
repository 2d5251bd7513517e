// SPDX-License-Identifier: Apache-2.0
#pragma once
// The core's side of <hetero/log.hpp>: level checks and the calls that log.
#include <string>

#include <hetero/log.hpp>

namespace hetero::detail {
/// True when messages of `level` are printed (cheap: one atomic load).
bool log_enabled(LogLevel level = LogLevel::info) noexcept;
/// Logs `message` at `level` (dropped below the current level). Thread-safe; never throws.
void log(LogLevel level, const std::string& message) noexcept;
/// log(LogLevel::info, message), the core's diagnostics (plugin loading, try_gpu fallback).
inline void log_info(const std::string& message) noexcept { log(LogLevel::info, message); }
/// log(LogLevel::debug, message): what HETERO_LOG=debug adds (each plugin directory searched
/// and file considered, each copy between devices). Build the message only under
/// `if (log_enabled(LogLevel::debug))` on hot paths.
inline void log_debug(const std::string& message) noexcept { log(LogLevel::debug, message); }
/// log(LogLevel::warn, message).
inline void log_warn(const std::string& message) noexcept { log(LogLevel::warn, message); }
}  // namespace hetero::detail
