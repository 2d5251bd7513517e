// SPDX-License-Identifier: Apache-2.0
#include "process_limits.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>

namespace hetero::cpu {
namespace {

// The process's mapped and data sizes in bytes (the first and sixth fields of
// /proc/self/statm, in pages: proc(5)); 0 where they cannot be read.
struct Mapped {
  std::size_t total = 0, data = 0;
};

Mapped mapped_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0, shared = 0, text = 0, lib = 0, data = 0;
  if (!(statm >> size >> resident >> shared >> text >> lib >> data)) return {};
  const long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) return {};
  const auto p = static_cast<std::size_t>(page);
  return {size * p, data * p};
}

// Appends the clause for `resource` (the first starts "the process's", later ones ", its")
// when its soft limit is finite.
void add_limit(std::string& out, int resource, const char* what, std::size_t in_use) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  out += (out.empty() ? "the process's " : ", its ") + std::string(what) + " is " +
         std::to_string(limit.rlim_cur) + " bytes";
  if (in_use > 0) out += ", " + std::to_string(in_use) + " of them mapped";
}

}  // namespace

std::string process_memory_limits() {
  const Mapped m = mapped_bytes();
  std::string out;
  add_limit(out, RLIMIT_AS, "address-space limit (RLIMIT_AS)", m.total);
  add_limit(out, RLIMIT_DATA, "data limit (RLIMIT_DATA)", m.data);
  return out;
}

}  // namespace hetero::cpu
