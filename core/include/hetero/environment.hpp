// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file environment.hpp
/// The HETERO_* environment against the configuration table (<hetero/config.hpp>): what
/// the core warns about when it first looks for plugins, for tools to show
/// (`hetero-smi --env`).
#include <string>
#include <vector>

#include <hetero/export.hpp>

namespace hetero {

/// One line per HETERO_* variable whose name is unknown ("... did you mean ...?") or whose
/// value is malformed (and what applies instead), sorted; empty when all is well.
HETERO_API std::vector<std::string> environment_problems();

}  // namespace hetero
