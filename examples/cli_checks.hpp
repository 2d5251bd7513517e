// SPDX-License-Identifier: Apache-2.0
#pragma once
// Option checks for the examples' command lines, with messages a user can read: CLI11's
// PositiveNumber says "Value 0 not in range 0.000000 to <a 309-digit number>".
#include <cmath>
#include <string>

#include <CLI/CLI.hpp>

namespace hetero::examples {

/// A number > 0 (finite).
inline CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || !(v > 0))
          return "must be a number greater than 0, got " + text;
        return {};
      },
      "> 0");
}

/// A number >= 0 (finite).
inline CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || !(v >= 0))
          return "must be a number of at least 0, got " + text;
        return {};
      },
      ">= 0");
}

}  // namespace hetero::examples
