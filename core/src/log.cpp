// SPDX-License-Identifier: Apache-2.0
#include "log.hpp"

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string_view>

namespace hetero::detail {

bool log_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("HETERO_LOG");
    return v && (std::string_view(v) == "info" || std::string_view(v) == "debug");
  }();
  return on;
}

void log_info(const std::string& message) {
  if (!log_enabled()) return;
  static std::mutex m;
  std::lock_guard lock(m);
  std::cerr << "[hetero] " << message << '\n';
}

}  // namespace hetero::detail
