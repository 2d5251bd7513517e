// hetero-smi: what nvidia-smi shows, for every backend hetero can load: devices (name,
// kind, memory) and plugins (path, version, loaded or why not). Exit code 0 even when no
// GPU exists; 1 only for a usage error.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

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
  return j;
}

void print_table() {
  fmt::print("hetero-smi — {} GPU(s)\n", hetero::num_gpus());
  const std::string rule(96, '-');
  fmt::print("{}\n{:<10} {:<8} {:<12} {:<42} {:>20}\n{}\n", rule, "Device", "Backend", "Kind", "Name",
             "Memory used / total", rule);
  for (const auto& d : hetero::all_devices()) {
    const auto info = hetero::device_info(d);
    std::string name = info.properties.name;
    if (name.size() > 42) name = name.substr(0, 39) + "...";
    fmt::print("{:<10} {:<8} {:<12} {:<42} {:>20}\n", d.str(), info.backend,
               hetero::device_kind_name(info.properties.kind), name,
               mib(info.memory.allocated) + " / " + mib(info.properties.total_memory));
    if (!info.properties.compute_capability.empty())
      fmt::print("{:<10} compute capability {}, {} multiprocessors, driver {}, runtime {}\n", "",
                 info.properties.compute_capability, info.properties.multiprocessor_count,
                 info.properties.driver_version, info.properties.runtime_version);
  }
  fmt::print("{}\nPlugins\n{}\n", rule, rule);
  for (const auto& s : hetero::backend_status()) {
    const std::string state = s.loaded ? fmt::format("loaded, {} device(s)", s.devices) : "not loaded";
    fmt::print("{:<8} {:<22} version {:<8} interface {:<5} {}\n", s.name.empty() ? "?" : s.name, state,
               s.version.empty() ? "-" : s.version, s.interface_version.empty() ? "-" : s.interface_version,
               s.path);
    if (!s.reason.empty()) fmt::print("         reason: {}\n", s.reason);
    if (!s.vendor_libraries.empty()) fmt::print("         vendor: {}\n", s.vendor_libraries);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hetero-smi: devices and plugins seen by hetero"};
  bool json = false;
  app.add_flag("--json", json, "print JSON for scripts");
  CLI11_PARSE(app, argc, argv);
  try {
    if (json) std::cout << to_json().dump(2) << '\n';
    else print_table();
  } catch (const hetero::Error& e) {
    std::cerr << "hetero-smi: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
