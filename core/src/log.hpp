// SPDX-License-Identifier: Apache-2.0
#pragma once
// HETERO_LOG=info prints the core's diagnostic lines (plugin loading, try_gpu fallback)
// to stderr, each prefixed "[hetero] ".
#include <string>

namespace hetero::detail {
/// True when HETERO_LOG is "info" or "debug".
bool log_enabled();
/// Prints `message` when log_enabled(). Thread-safe.
void log_info(const std::string& message);
}  // namespace hetero::detail
