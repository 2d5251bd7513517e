// SPDX-License-Identifier: Apache-2.0
#include "registry.hpp"
#include "backend_calls.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <hetero/error.hpp>
#include <hetero/sdk/find_backend.hpp>

#include <hetero/config.hpp>

#include "environment_check.hpp"
#include "log.hpp"
#include "profiler_record.hpp"

namespace hetero::detail {
namespace fs = std::filesystem;
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  return out;
}

bool is_plugin_file_name(const std::string& f) {
  return f.rfind("libhetero-", 0) == 0 && f.size() > 13 && f.ends_with(".so");
}

// Where the configuration table has a HETERO_<TYPE>_DEVICES row (the cpu backend's virtual
// devices), what to set for `d` to exist; empty otherwise (the core names no backend).
std::string devices_hint(const Device& d) {
  std::string name = "HETERO_" + d.type() + "_DEVICES";
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (config::find(name) == nullptr) return {};
  const std::string n = std::to_string(d.index() + 1);
  return " (" + name + "=" + n + " before the first use of hetero makes " + n + " virtual " +
         d.type() + " devices)";
}

// HETERO_BACKENDS=cpu,opencl; empty or unset: all.
bool backend_allowed(const std::string& name) {
  const auto allowed = config::list("HETERO_BACKENDS");
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), name) != allowed.end();
}

}  // namespace

// Note [Exit without teardown]: the registry is never destroyed. At process exit the
// backends, their devices and the vendor libraries they opened are left to the operating
// system, as PyTorch leaks its CUDA caching allocator and cuBLAS handles and ggml its
// backend registry: a registry destroyed by a static destructor would run after the
// plugins' own static destructors and after vendor runtimes' exit handlers (cudart's are
// registered at its first call, later than this object), and call into both. Explicit
// unloading while the program runs (unload_plugins()) still destroys everything in order.
// See docs/design/plugin-lifetime.md.
Registry& Registry::instance() {
  static Registry* const r = new Registry;  // never deleted: Note [Exit without teardown]
  return *r;
}

void Registry::reset() {
  std::lock_guard lock(mutex_);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  for (const auto& p : plugins_) {
    retired_plugins_alive.fetch_add(1, std::memory_order_acq_rel);
    p->retired.store(true, std::memory_order_release);
    retired_.push_back(p);
  }
  plugins_.clear();
  records_.clear();
  discovered_ = false;
}

BackendStatus Registry::load_locked(const std::string& canonical, bool throw_on_error) {
  for (const auto& r : records_)
    if (r.path == canonical && r.loaded) return r;
  BackendStatus status;
  status.path = canonical;
  try {
    auto lib = open_plugin(canonical, status);
    if (!backend_allowed(status.name)) {
      status.reason = "excluded by HETERO_BACKENDS";
      records_.push_back(status);
      return status;
    }
    for (const auto& p : plugins_)
      if (p->status.name == status.name)
        throw PluginLoadError("cannot load plugin '" + canonical + "': backend name '" +
                              status.name + "' is already provided by '" + p->status.path + "'");
    auto plugin = create_backend(std::move(lib), status);
    plugins_.push_back(plugin);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    records_.push_back(plugin->status);
    log_info("loaded plugin " + canonical + " (" + plugin->status.name + ", " +
             std::to_string(plugin->status.devices) + " device(s))");
    return plugin->status;
  } catch (const PluginLoadError& e) {
    status.loaded = false;
    status.reason = e.what();
    records_.push_back(status);
    log_info(status.reason);
    if (throw_on_error) throw;
    return status;
  }
}

namespace {
// A directory every user may write (/tmp-like): its files are not trusted for discovery.
bool world_writable(const std::string& dir) {
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && (st.st_mode & S_IWOTH) != 0;
}
}  // namespace

void Registry::discover_locked() {
  if (discovered_) return;
  discovered_ = true;
  check_environment();             // unknown HETERO_* names and malformed values, said once
  prof::start_from_environment();  // HETERO_PROFILE
  // HETERO_PLUGIN_DISCOVERY=0: only plugins loaded explicitly with load_plugin() (the
  // conformance kit tests exactly the file it was built with, even when a plugin of the
  // same name is installed).
  if (const auto raw = config::raw("HETERO_PLUGIN_DISCOVERY")) {
    const char* env = raw->c_str();
    std::string v(env);
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    if (v == "0" || v == "false" || v == "off" || v == "no") {
      log_info("plugin discovery disabled by HETERO_PLUGIN_DISCOVERY=" + std::string(env));
      return;
    }
    if (v != "1" && v != "true" && v != "on" && v != "yes" && !v.empty()) {
      BackendStatus bad;  // said, not silently taken as "on" (issue #25)
      bad.reason = "HETERO_PLUGIN_DISCOVERY='" + std::string(env) +
                   "' not understood (0/false/off/no or 1/true/on/yes): discovery stays on";
      records_.push_back(bad);
      log_info(bad.reason);
    }
  }
  std::vector<std::string> dirs;
  const std::string own = default_plugin_dir();
  if (!own.empty() && fs::is_directory(own)) dirs.push_back(own);
  // secure_getenv: a setuid/setgid program ignores the variable (as ld.so ignores
  // LD_LIBRARY_PATH there), so it cannot be made to load a plugin of the caller's choosing.
  if (const auto env = config::raw("HETERO_PLUGIN_PATH", /*secure=*/true)) {
    for (const auto& entry : split(*env, ':')) {
      if (entry.empty()) continue;  // an empty entry would mean the current directory: never
      BackendStatus bad;
      bad.path = entry;
      if (!fs::path(entry).is_absolute()) {
        bad.reason = "HETERO_PLUGIN_PATH entry '" + entry +
                     "' ignored: not an absolute path (plugins are never loaded relative to the "
                     "current directory)";
      } else if (!fs::is_directory(entry)) {
        bad.reason = "HETERO_PLUGIN_PATH entry '" + entry + "' ignored: no such directory";
      } else if (world_writable(entry)) {
        bad.reason = "HETERO_PLUGIN_PATH entry '" + entry +
                     "' ignored: the directory is writable by every user, so anyone could put a "
                     "plugin there (chmod o-w)";
      } else {
        dirs.push_back(fs::canonical(entry).string());
        continue;
      }
      records_.push_back(bad);
      log_info(bad.reason);
    }
  }
  std::vector<std::string> seen_dirs;
  for (const auto& dir : dirs) {
    if (std::find(seen_dirs.begin(), seen_dirs.end(), dir) != seen_dirs.end()) continue;
    seen_dirs.push_back(dir);
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (is_plugin_file_name(e.path().filename().string())) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    if (log_enabled(LogLevel::debug))
      log_debug("searching " + dir + " for plugins: " + std::to_string(files.size()) +
                " file(s) named libhetero-<name>.so");
    for (const auto& f : files) {
      std::error_code cec;
      const auto canonical = fs::canonical(f, cec);
      const std::string path = cec ? f : canonical.string();
      // HETERO_BACKENDS: a discovered file named for another backend is not even opened
      // (opening the cuda plugin maps cuBLAS, hundreds of MB). Its info record, read
      // when a file is opened, still decides for files named otherwise.
      if (const std::string stem = fs::path(f).stem().string(); !backend_allowed(stem.substr(10))) {
        BackendStatus skipped;
        skipped.path = path;
        skipped.name = stem.substr(10);
        skipped.reason = "excluded by HETERO_BACKENDS (not opened)";
        log_debug(path + ": " + skipped.reason);
        records_.push_back(skipped);
        continue;
      }
      load_locked(path, false);
    }
  }
  // A name in HETERO_BACKENDS that no plugin provides is said, not silently ignored.
  std::string found;
  auto provided = [&](const std::string& name) {
    for (const auto& p : plugins_)
      if (p->status.name == name) return true;
    return false;
  };
  for (const auto& p : plugins_) found += (found.empty() ? "" : ", ") + p->status.name;
  for (const auto& name : config::list("HETERO_BACKENDS"))
    if (!provided(name))
      log_warn("HETERO_BACKENDS names '" + name + "', which no plugin found provides (loaded: " +
               (found.empty() ? std::string("none") : found) + ")");
}

std::vector<std::shared_ptr<LoadedPlugin>> Registry::loaded() {
  std::lock_guard lock(mutex_);
  discover_locked();
  return plugins_;
}

std::vector<BackendStatus> Registry::status() {
  std::lock_guard lock(mutex_);
  discover_locked();
  return records_;
}

BackendStatus Registry::load(const std::string& path) {
  std::lock_guard lock(mutex_);
  discover_locked();
  std::error_code ec;
  const auto canonical = fs::canonical(path, ec);
  if (ec) {
    BackendStatus s;
    s.path = path;
    s.reason = "cannot load plugin '" + path + "': no such file";
    records_.push_back(s);
    throw PluginLoadError(s.reason);
  }
  return load_locked(canonical.string(), true);
}

std::shared_ptr<LoadedPlugin> Registry::find(const std::string& type) {
  std::lock_guard lock(mutex_);
  discover_locked();
  for (const auto& p : plugins_)
    if (p->status.name == type) return p;
  return nullptr;
}

std::vector<std::shared_ptr<LoadedPlugin>> Registry::retired(const std::string& type) {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<LoadedPlugin>> alive;
  std::erase_if(retired_, [&](const std::weak_ptr<LoadedPlugin>& w) {
    auto p = w.lock();
    if (!p) return true;
    if (p->status.name == type) alive.push_back(std::move(p));
    return false;
  });
  return alive;
}

std::shared_ptr<LoadedPlugin> plugin_for(const Device& d) {
  // A per-thread cache of the last lookup: a factory in a loop (ones, rand) then costs a
  // comparison and a weak_ptr lock, not the registry's mutex and search. A changed
  // generation (a load, unload_plugins()) or an unloaded plugin misses.
  struct Cache {
    std::uint64_t generation = 0;
    std::string type;
    std::weak_ptr<LoadedPlugin> plugin;
  };
  thread_local Cache cache;
  auto& reg = Registry::instance();
  const std::uint64_t generation = reg.generation();
  std::shared_ptr<LoadedPlugin> p;
  if (cache.generation == generation && cache.type == d.type()) p = cache.plugin.lock();
  if (!p) {
    p = reg.find(d.type());
    if (p) cache = Cache{generation, d.type(), p};
  }
  if (!p) {
    // Say what is there and what to set (issue #28): the loaded types, and the variables
    // that decide which plugins load.
    std::string loaded;
    for (const auto& r : reg.status())
      if (r.loaded) loaded += (loaded.empty() ? "" : ", ") + r.name;
    std::string why = "no loaded plugin provides device type '" + d.type() +
                      "' (loaded: " + (loaded.empty() ? std::string("none") : loaded) +
                      "; a plugin libhetero-" + d.type() +
                      ".so is found beside libhetero_core.so or in HETERO_PLUGIN_PATH, "
                      "unless HETERO_BACKENDS leaves it out)";
    for (const auto& r : reg.status())
      if (r.name == d.type()) why = r.reason;
    throw DeviceUnavailableError("device " + d.str() + " is unavailable: " + why);
  }
  const int n = detail::calls::device_count(*p);
  if (n == 0)
    throw DeviceUnavailableError("device " + d.str() + " is unavailable: backend '" + d.type() +
                                 "' has no devices (" + p->status.reason + ")");
  if (d.index() >= n)
    throw InvalidDeviceError("device " + d.str() + " does not exist: backend '" + d.type() +
                             "' has " + std::to_string(n) + " device(s)" + devices_hint(d));
  return p;
}

Stream& default_stream_for(const Device& d) {
  struct Cache {
    std::uint64_t generation = 0;
    std::optional<Device> device;
    Stream* stream = nullptr;
  };
  thread_local Cache cache;
  const std::uint64_t generation = Registry::instance().generation();
  if (cache.generation == generation && cache.device && *cache.device == d) return *cache.stream;
  Stream& stream = detail::calls::default_stream(*plugin_for(d), d.index());
  cache = Cache{generation, d, &stream};
  return stream;
}

}  // namespace hetero::detail

namespace hetero {

std::vector<BackendStatus> backend_status() { return detail::Registry::instance().status(); }

BackendStatus load_plugin(const std::string& path) {
  return detail::Registry::instance().load(path);
}

std::shared_ptr<Backend> find_backend(const std::string& name) {
  auto p = detail::Registry::instance().find(name);
  if (!p) return nullptr;
  return std::shared_ptr<Backend>(p, p->backend.get());  // shares ownership of the plugin
}

void unload_plugins() { detail::Registry::instance().reset(); }

std::string default_plugin_dir() {
  // The directory of the library containing this code: libhetero_core.so's own directory,
  // so a moved install still finds its plugins.
  std::error_code ec;
  const auto self = boost::dll::this_line_location(ec);
  if (ec) return {};
  return std::filesystem::weakly_canonical(
             std::filesystem::path(self.parent_path().string()) / "hetero" / "plugins", ec)
      .string();
}

}  // namespace hetero
