// SPDX-License-Identifier: Apache-2.0
// hetero-smi: what nvidia-smi shows, for every backend hetero can load: devices (name,
// kind, memory) and plugins (path, version, loaded or why not). Exit code 0 even when no
// GPU exists; 1 only for a usage error.
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <hetero/config.hpp>
#include <hetero/environment.hpp>
#include <hetero/hetero.hpp>

namespace {

std::string mib(std::size_t bytes) { return fmt::format("{}MiB", bytes >> 20); }

nlohmann::json to_json() {
  nlohmann::json j;
  j["devices"] = nlohmann::json::array();
  for (const auto& d : hetero::all_devices()) {
    const auto info = hetero::device_info(d);
    j["devices"].push_back({{"device", d.str()},
                            {"backend", info.backend},
                            {"index", d.index()},
                            {"name", info.properties.name},
                            {"kind", hetero::device_kind_name(info.properties.kind)},
                            {"total_memory_bytes", info.properties.total_memory},
                            {"free_memory_bytes", info.properties.free_memory},
                            {"allocated_bytes", info.memory.allocated},
                            {"reserved_bytes", info.memory.reserved},
                            {"peak_allocated_bytes", info.memory.peak_allocated},
                            {"device_allocations", info.memory.allocation_count},
                            {"pool_hits", info.memory.pool_hits},
                            {"multiprocessor_count", info.properties.multiprocessor_count},
                            {"compute_capability", info.properties.compute_capability},
                            {"driver_version", info.properties.driver_version},
                            {"runtime_version", info.properties.runtime_version}});
  }
  j["plugins"] = nlohmann::json::array();
  for (const auto& s : hetero::backend_status())
    j["plugins"].push_back({{"name", s.name},
                            {"path", s.path},
                            {"loaded", s.loaded},
                            {"devices", s.devices},
                            {"reason", s.reason},
                            {"version", s.version},
                            {"interface_version", s.interface_version},
                            {"compiler", s.compiler},
                            {"vendor_libraries", s.vendor_libraries}});
  j["gpus"] = hetero::num_gpus();
  // Version 1 of this layout: keys are only ever added (docs/versioning.md).
  j["schema"] = 1;
  j["hetero_version"] = std::string(hetero::version().string);
  return j;
}

// One row per device, as nvidia-smi's device table, with the allocator's pool statistics.
void print_devices() {
  const std::string rule(118, '-');
  fmt::print("{}\n{:<11} {:<8} {:<11} {:<32} {:>19} {:>9} {:>9} {:>7} {:>6}\n{}\n", rule, "Device",
             "Backend", "Kind", "Name", "Memory used / total", "Reserved", "Peak", "Allocs", "Hits",
             rule);
  for (const auto& d : hetero::all_devices()) {
    const auto info = hetero::device_info(d);
    std::string name = info.properties.name;
    if (name.size() > 32) name = name.substr(0, 29) + "...";
    fmt::print("{:<11} {:<8} {:<11} {:<32} {:>19} {:>9} {:>9} {:>7} {:>6}\n", d.str(), info.backend,
               hetero::device_kind_name(info.properties.kind), name,
               mib(info.memory.allocated) + " / " + mib(info.properties.total_memory),
               mib(info.memory.reserved), mib(info.memory.peak_allocated),
               info.memory.allocation_count, info.memory.pool_hits);
    if (!info.properties.compute_capability.empty())
      fmt::print("{:<11} compute capability {}, {} multiprocessors, driver {}, runtime {}\n", "",
                 info.properties.compute_capability, info.properties.multiprocessor_count,
                 info.properties.driver_version, info.properties.runtime_version);
    else if (!info.properties.runtime_version.empty())
      fmt::print("{:<11} {} compute units, {}, driver {}\n", "",
                 info.properties.multiprocessor_count, info.properties.runtime_version,
                 info.properties.driver_version);
  }
  if (hetero::all_devices().empty())
    fmt::print("(no device: hetero-smi --plugins shows each plugin's state and why)\n");
  fmt::print("{}\n", rule);
}

// Every plugin file found or loaded, and every unusable search-path entry, with why.
void print_plugins() {
  const std::string rule(118, '-');
  fmt::print("Plugins (search: {}{}{})\n{}\n", hetero::default_plugin_dir(),
             std::getenv("HETERO_PLUGIN_PATH") ? ":" : "",
             std::getenv("HETERO_PLUGIN_PATH") ? std::getenv("HETERO_PLUGIN_PATH") : "", rule);
  fmt::print("{:<15} {:<22} {:<9} {:<9} {}\n", "Backend", "State", "Version", "Interface", "Path");
  for (const auto& s : hetero::backend_status()) {
    const std::string state =
        s.loaded ? fmt::format("loaded, {} device(s)", s.devices) : "not loaded";
    fmt::print("{:<15} {:<22} {:<9} {:<9} {}\n", s.name.empty() ? "?" : s.name, state,
               s.version.empty() ? "-" : s.version,
               s.interface_version.empty() ? "-" : s.interface_version, s.path);
    if (!s.reason.empty()) fmt::print("{:<15} reason: {}\n", "", s.reason);
    if (!s.vendor_libraries.empty()) fmt::print("{:<15} vendor: {}\n", "", s.vendor_libraries);
    if (!s.compiler.empty()) fmt::print("{:<15} built with {}\n", "", s.compiler);
  }
}

// The configuration table (config.hpp) with each variable's effective value: as a text
// table, or as README's markdown (test tools.readme_config_table compares the two).
void print_environment(bool markdown) {
  namespace config = hetero::config;
  if (markdown) {
    fmt::print("| variable | type | default | meaning |\n|---|---|---|---|\n");
    for (const config::Variable& v : config::kVariables) {
      std::string type(config::type_text(v.type));
      if (v.type == config::Type::integer) type += fmt::format(" in [{}, {}]", v.min, v.max);
      fmt::print("| `{}` | {} | {} | {} |\n", v.name, type, v.default_text, v.meaning);
    }
    return;
  }
  std::size_t row = 0;
  for (const config::Variable& v : config::kVariables) {
    if (row++ == config::kLibraryVariables)
      fmt::print("-- read by hetero's build, test and benchmark scripts, not by the libraries:\n");
    const auto value = config::raw(v.name);
    std::string shown = value ? "'" + *value + "'" : fmt::format("unset: {}", v.default_text);
    if (value)
      if (const std::string why = config::problem(v, *value); !why.empty())
        shown += fmt::format("  MALFORMED, default {} applies", v.default_text);
    fmt::print("{:<27} {}\n", v.name, shown);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hetero-smi: devices and plugins seen by hetero"};
  bool json = false;
  bool devices_only = false;
  bool plugins_only = false;
  app.set_version_flag("--version", "hetero-smi " + std::string(hetero::version().string));
  app.add_flag("--json", json,
               "print JSON for scripts (schema, hetero_version, devices, plugins, gpus)");
  app.add_flag("--devices", devices_only, "only the device table")->excludes("--json");
  app.add_flag("--plugins", plugins_only, "only the plugin section")
      ->excludes("--json", "--devices");
  bool env = false, markdown = false;
  app.add_flag("--env", env,
               "the HETERO_* configuration: every variable and its effective value (malformed "
               "values marked); with --markdown, the table of variables README shows")
      ->excludes("--json", "--devices", "--plugins");
  app.add_flag("--markdown", markdown, "with --env: the table as markdown");
  app.footer(
      "Exit status: 0 (also when no GPU exists), 1 for a usage error, 2 when hetero itself fails.\n"
      "Environment: the HETERO_* variables (hetero-smi --env lists them) and "
      "CUDA_VISIBLE_DEVICES.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --help is success; any usage error is 1
  }
  try {
    if (env) {
      print_environment(markdown);
      for (const std::string& p : hetero::environment_problems()) fmt::print("warning: {}\n", p);
      return 0;
    }
    if (json) {
      // Paths are bytes, not always UTF-8: invalid sequences print as U+FFFD, never throw.
      std::cout << to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
      return 0;
    }
    if (!plugins_only) {
      fmt::print("hetero-smi — {} GPU(s), {} device(s)\n", hetero::num_gpus(),
                 hetero::all_devices().size());
      print_devices();
    }
    if (!devices_only) print_plugins();
  } catch (const std::exception& e) {
    std::cerr << "hetero-smi: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
