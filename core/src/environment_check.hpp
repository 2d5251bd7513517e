// SPDX-License-Identifier: Apache-2.0
#pragma once
// The HETERO_* environment against the configuration table (config.hpp).
#include <string>
#include <vector>

namespace hetero::detail {
/// Logs environment_problems() (<hetero/environment.hpp>) as warnings (registry.cpp, once,
/// before discovery).
void check_environment() noexcept;
}  // namespace hetero::detail
