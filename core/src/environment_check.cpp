// SPDX-License-Identifier: Apache-2.0
// The one check of the HETERO_* environment (Note [Configuration table], config.hpp): run
// when the core first looks for plugins; warns about unknown names (with the closest known
// one) and malformed values (and what applies instead), through the log.
#include "environment_check.hpp"

#include <unistd.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <hetero/config.hpp>
#include <hetero/environment.hpp>

#include "log.hpp"

namespace hetero {
namespace {

// Edit distance, for "did you mean".
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> environment_problems() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    const std::string_view name = entry.substr(0, eq);
    if (name.rfind("HETERO_", 0) != 0 || eq == std::string_view::npos) continue;
    const std::string value(entry.substr(eq + 1));
    const config::Variable* row = config::find(name);
    if (row == nullptr) {
      std::string_view closest;
      std::size_t best = 4;  // suggest only near misses
      for (const config::Variable& v : config::kVariables)
        if (const std::size_t d = distance(name, v.name); d < best) best = d, closest = v.name;
      out.push_back("unknown variable " + std::string(name) + " is ignored" +
                    (closest.empty() ? std::string(" (hetero-smi --env lists the known ones)")
                                     : " (did you mean " + std::string(closest) + "?)"));
      continue;
    }
    if (value.empty()) continue;
    // What happens to the value, as its readers do it (issue #44: this said "the default
    // applies" where the reader refused the value): timeouts are refused by
    // init_process_group(), every other type falls back to its default.
    if (const std::string why = config::problem(*row, value); !why.empty())
      out.push_back(why + (row->type == config::Type::seconds
                               ? std::string("; init_process_group() refuses it "
                                             "(DistributedError)")
                               : "; the default applies (" + std::string(row->default_text) + ")"));
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace detail {

void check_environment() noexcept {
  try {
    for (const std::string& p : environment_problems()) log_warn(p);
  } catch (...) {
  }
}

}  // namespace detail
}  // namespace hetero
