#pragma once
// The process-wide plugin registry: discovery, status records, lookup by device.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <hetero/device.hpp>
#include <hetero/plugins.hpp>

#include "plugin_library.hpp"

namespace hetero::detail {

class Registry {
 public:
  static Registry& instance();

  /// Loaded backends in discovery order (discovers on first call).
  std::vector<std::shared_ptr<LoadedPlugin>> loaded();
  /// Status records (discovers on first call).
  std::vector<BackendStatus> status();
  /// Loads one file explicitly (see hetero::load_plugin).
  BackendStatus load(const std::string& path);
  /// Forgets everything; next call discovers again.
  void reset();
  /// The backend providing `type`, or nullptr.
  std::shared_ptr<LoadedPlugin> find(const std::string& type);

 private:
  void discover_locked();
  // Loads one canonical path; records the outcome; returns the record. Throws
  // PluginLoadError only when `throw_on_error`.
  BackendStatus load_locked(const std::string& canonical, bool throw_on_error);

  std::mutex mutex_;
  bool discovered_ = false;
  std::vector<std::shared_ptr<LoadedPlugin>> plugins_;
  std::vector<BackendStatus> records_;
};

/// The loaded plugin that owns `d` and checks that d's index exists. Throws
/// DeviceUnavailableError (no backend of that type, or 0 devices, with the reason) or
/// InvalidDeviceError (index out of range).
std::shared_ptr<LoadedPlugin> plugin_for(const Device& d);

}  // namespace hetero::detail
