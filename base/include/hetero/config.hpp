// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file config.hpp
/// Note [Configuration table]: every HETERO_* environment variable, its type, default and
/// meaning, in one table, and the one parser of each type. The core, the plugins and
/// hetero::distributed read their variables through these functions (header-only, so the
/// plugins, which must not link the core, share them); the core checks the whole
/// environment once, when it first looks for plugins, and warns through its log
/// (<hetero/log.hpp>) about unknown HETERO_* names and malformed values, instead of
/// ignoring them; `hetero-smi --env` prints the effective configuration, and README's table
/// is its `--markdown` output (test tools.readme_config_table).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/stat.h>

#include <hetero/error.hpp>

namespace hetero::config {

/// How a variable's value is read.
enum class Type : std::uint8_t {
  flag,       ///< 1/true/on/yes or 0/false/off/no (any case)
  integer,    ///< a decimal integer in the row's range
  list,       ///< comma-separated names
  paths,      ///< colon-separated absolute directories
  path,       ///< one file or directory; a relative one is taken from the working directory
  file,       ///< one file (not a directory); a relative one is taken from the working directory
  directory,  ///< one directory (not a file); a relative one is taken from the working directory
  level,      ///< error, warn, info or debug
  bytes,      ///< digits, optionally followed by K, M or G (powers of 1024), alone or with
              ///< B or iB, any case: 512M, 512MB, 512MiB, 1gb; or digits and B
  seconds,    ///< a number >= 0, or inf
};

/// One row of the table.
struct Variable {
  std::string_view name;          ///< HETERO_...
  Type type;                      ///< how its value is parsed and checked
  std::string_view default_text;  ///< what applies when unset, in words
  std::string_view meaning;       ///< what it does, one line (hetero-smi --env prints it)
  std::int64_t min = 0;           ///< integer rows: the smallest accepted value
  std::int64_t max = 0;           ///< integer rows: the largest accepted value
};

// clang-format off
/// The table: every variable hetero reads, in the order hetero-smi --env prints them.
inline constexpr Variable kVariables[] = {
  {"HETERO_BACKENDS", Type::list, "every plugin found",
   "backends to load, e.g. cpu,opencl; a name no plugin provides is warned about"},
  {"HETERO_PLUGIN_PATH", Type::paths, "none",
   "directories searched for plugins besides lib/hetero/plugins beside libhetero_core.so "
   "(ignored by setuid programs)"},
  {"HETERO_PLUGIN_DISCOVERY", Type::flag, "1",
   "0: load only the plugins an application loads with load_plugin()"},
  {"HETERO_LOG", Type::level, "warn",
   "the least severe log messages printed: error, warn, info or debug"},
  {"HETERO_PROFILE", Type::file, "none",
   "a file: record a profile (hetero::profiler) from the first use of hetero to exit and "
   "write it there as Chrome trace JSON (a relative path is resolved, and logged, at the "
   "first use)"},
  {"HETERO_PROFILE_MAX_EVENTS", Type::integer, "2097152",
   "the most events one profiler recording keeps (about 200 bytes each); later ones are "
   "dropped and counted", 1, std::int64_t{1} << 40},
  {"HETERO_REQUIRE_GPU", Type::flag, "0",
   "1: try_gpu() raises DeviceUnavailableError instead of falling back to cpu"},
  {"HETERO_CPU_DEVICES", Type::integer, "1", "virtual cpu devices (cpu:0 ... cpu:N-1)", 1, 64},
  {"HETERO_CPU_THREADS", Type::integer, "the cores in the process's CPU affinity mask",
   "kernel threads of the cpu backend, shared by its devices", 1, 4096},
  {"HETERO_CPU_INLINE_LIMIT", Type::integer, "1048576",
   "cpu work of fewer elements runs on the calling thread (0: all on the device's worker; "
   "convolutions on oneDNN always run on the calling thread)",
   0, 1 << 30},
  {"HETERO_CPU_ONEDNN", Type::flag, "1",
   "0: the cpu backend's float32 convolution on its own im2col kernels instead of oneDNN"},
  {"HETERO_MEMORY_POOL", Type::flag, "1",
   "0: no caching allocator (every free returns memory at once; for sanitizers)"},
  {"HETERO_MEMORY_CACHE_LIMIT", Type::bytes, "1/8 of the device's memory, at most 1G",
   "cached free memory per device"},
  {"HETERO_DISTRIBUTED_TIMEOUT", Type::seconds, "1800",
   "seconds a collective may take before the process group fails (0: no timeout)"},
  {"HETERO_DISTRIBUTED_INIT_TIMEOUT", Type::seconds,
   "the larger of 300 and HETERO_DISTRIBUTED_TIMEOUT (0 being the larger)",
   "seconds MPI's start-up and the process group's set-up may take (0: no bound)"},
  {"HETERO_DISTRIBUTED_CHECK", Type::flag, "1",
   "0: no check that every rank calls the same collective"},
  // Read by hetero's scripts and tests, not by the libraries (listed so that setting them
  // is not warned about).
  {"HETERO_JOBS", Type::integer, "2", "tools/run_tests.sh: parallel build and test jobs", 1, 1024},
  {"HETERO_FUZZ_SECONDS", Type::integer, "20", "tools/run_fuzz.sh: seconds of fuzzing", 0, 1 << 30},
  {"HETERO_CONFORMANCE_SEQUENCES", Type::integer, "1000",
   "the conformance kit: randomised stream sequences each backend runs "
   "(RandomisedSequencesMatchASynchronousRun; fewer for slow builds such as sanitizers')",
   1, 1 << 20},
  {"HETERO_BENCH_BUILD", Type::directory, "build", "bench/run: the build directory"},
  {"HETERO_TORCH_CASES", Type::file, "none", "the torch_conv/torch_optim tests: their case file"},
  {"HETERO_TEST_DEVICE", Type::list, "cpu", "the torch_conv/torch_optim tests: the device"},
};
// clang-format on

/// kVariables' rows before this index are read by the libraries; the rest only by hetero's
/// scripts and tests (hetero-smi --env lists them apart).
inline constexpr std::size_t kLibraryVariables = 16;
static_assert(kVariables[kLibraryVariables].name == "HETERO_JOBS",
              "kLibraryVariables: the first row read only by scripts and tests");

/// The row of `name`, or nullptr.
constexpr const Variable* find(std::string_view name) noexcept {
  for (const Variable& v : kVariables)
    if (v.name == name) return &v;
  return nullptr;
}

/// The type's name and accepted values, for messages and the table.
constexpr std::string_view type_text(Type t) noexcept {
  switch (t) {
    case Type::flag:
      return "flag: 0/1, false/true, off/on, no/yes";
    case Type::integer:
      return "integer";
    case Type::list:
      return "comma-separated names";
    case Type::paths:
      return "colon-separated absolute directories";
    case Type::path:
      return "a file or directory (relative: from the working directory)";
    case Type::file:
      return "a file, not a directory (relative: from the working directory)";
    case Type::directory:
      return "a directory (relative: from the working directory)";
    case Type::level:
      return "error, warn, info or debug";
    case Type::bytes:
      return "bytes, optionally with K, M or G (KB/KiB, MB/MiB, GB/GiB: powers of 1024)";
    case Type::seconds:
      return "seconds >= 0, or inf";
  }
  return "";
}

/// The variable's value, or nullopt when unset or empty. `secure`: nullopt in setuid and
/// setgid programs too (secure_getenv), for variables that choose code to load.
inline std::optional<std::string> raw(std::string_view name, bool secure = false) {
  const std::string n(name);
  const char* v = secure ? ::secure_getenv(n.c_str()) : std::getenv(n.c_str());
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

namespace detail {
inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
/// Whether `path` names an existing directory (following links) / anything that exists.
inline bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
inline bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}
inline std::string quoted(std::string_view name, const std::string& value) {
  return std::string(name) + "='" + value + "'";
}
/// A byte count as Type::bytes describes it, or nullopt when malformed or beyond size_t:
/// the one parser of the type (the warning and the readers agree; issue #44: "512MB" was
/// warned about as defaulted, then refused by the cpu plugin, which then had no device).
inline std::optional<std::size_t> parse_bytes(const std::string& value) {
  std::size_t i = 0;
  while (i < value.size() && value[i] >= '0' && value[i] <= '9') ++i;
  if (i == 0 || i > 18) return std::nullopt;
  const std::string unit = lower(value.substr(i));
  int shift = 0;
  if (!unit.empty() && unit != "b") {
    const char prefix = unit[0];
    shift = prefix == 'k' ? 10 : prefix == 'm' ? 20 : prefix == 'g' ? 30 : -1;
    const std::string rest = unit.substr(1);
    if (shift < 0 || !(rest.empty() || rest == "b" || rest == "ib")) return std::nullopt;
  }
  const std::size_t n = std::strtoull(value.substr(0, i).c_str(), nullptr, 10);
  if (n > (std::numeric_limits<std::size_t>::max() >> shift)) return std::nullopt;
  return n << shift;
}
}  // namespace detail

/// Why `value` is not a valid value of variable `v` ("" when it is).
inline std::string problem(const Variable& v, const std::string& value) {
  const std::string bad = detail::quoted(v.name, value) + " is not ";
  switch (v.type) {
    case Type::flag: {
      const std::string l = detail::lower(value);
      if (l == "0" || l == "1" || l == "false" || l == "true" || l == "off" || l == "on" ||
          l == "no" || l == "yes")
        return {};
      return bad + "a flag (0/1, false/true, off/on, no/yes)";
    }
    case Type::integer: {
      errno = 0;
      char* end = nullptr;
      const long long n = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || errno == ERANGE || n < v.min || n > v.max)
        return bad + "an integer in [" + std::to_string(v.min) + ", " + std::to_string(v.max) + "]";
      return {};
    }
    case Type::level: {
      const std::string l = detail::lower(value);
      if (l == "error" || l == "warn" || l == "info" || l == "debug") return {};
      return bad + "a log level (error, warn, info or debug)";
    }
    case Type::bytes:
      return detail::parse_bytes(value)
                 ? std::string()
                 : bad + "a byte count (digits, optionally K, M or G, with B or iB: 512MB)";
    case Type::seconds: {
      char* end = nullptr;
      const double s = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !(s >= 0))
        return bad + "a number of seconds >= 0 (or inf)";
      return {};
    }
    case Type::file:
      // (A name that does not exist yet is a file to be written: HETERO_PROFILE.)
      if (value.back() == '/' || detail::is_directory(value))
        return bad + "a file: it names a directory (give a file name in it, e.g. " + value +
               (value.back() == '/' ? "" : "/") + "trace.json)";
      return {};
    case Type::directory:
      if (detail::exists(value) && !detail::is_directory(value))
        return bad + "a directory: it names a file";
      return {};
    case Type::list:
    case Type::paths:
    case Type::path:
      return {};
  }
  return {};
}

/// The value of a row's variable when set and well formed: nullopt when unset (or not a
/// row); Error naming the variable, value and what is accepted when malformed.
inline std::optional<std::string> checked(std::string_view name) {
  const auto v = raw(name);
  const Variable* row = find(name);
  if (!v || row == nullptr) return std::nullopt;
  if (const std::string why = problem(*row, *v); !why.empty()) throw Error(why);
  return v;
}

/// A flag's value: `fallback` when unset or malformed (the core warns about the latter).
inline bool flag(std::string_view name, bool fallback) {
  const auto v = raw(name);
  const Variable* row = find(name);
  if (!v || row == nullptr || !problem(*row, *v).empty()) return fallback;
  const std::string l = detail::lower(*v);
  return l == "1" || l == "true" || l == "on" || l == "yes";
}

/// An integer's value: `fallback` when unset or malformed (out of the row's range
/// included), as the core's warning about it says (issue #44: the warning said the default
/// applied while the cpu plugin refused the value and had no device).
inline std::int64_t integer(std::string_view name, std::int64_t fallback) {
  const auto v = raw(name);
  const Variable* row = find(name);
  if (!v || row == nullptr || !problem(*row, *v).empty()) return fallback;
  return std::strtoll(v->c_str(), nullptr, 10);
}

/// A list's names (empty entries dropped); empty when unset.
inline std::vector<std::string> list(std::string_view name, char separator = ',',
                                     bool secure = false) {
  std::vector<std::string> out;
  const auto v = raw(name, secure);
  if (!v) return out;
  std::string item;
  for (char c : *v + separator) {
    if (c != separator) {
      item += c;
    } else if (!item.empty()) {
      out.push_back(item);
      item.clear();
    }
  }
  return out;
}

/// A byte count: nullopt when unset or malformed (the reader's default then applies, as
/// the core's warning about it says).
inline std::optional<std::size_t> bytes(std::string_view name) {
  const auto v = raw(name);
  return v ? detail::parse_bytes(*v) : std::nullopt;
}

/// Seconds: nullopt when unset; Error naming the variable when malformed or NaN.
inline std::optional<double> seconds(std::string_view name) {
  const auto v = checked(name);
  return v ? std::optional<double>(std::strtod(v->c_str(), nullptr)) : std::nullopt;
}

}  // namespace hetero::config
