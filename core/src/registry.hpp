// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process-wide plugin registry: discovery, status records, lookup by device.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <hetero/device.hpp>
#include <hetero/plugins.hpp>

#include "plugin_library.hpp"

namespace hetero {
class Stream;
}  // namespace hetero

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
  /// Instances of `type` that reset() retired and that tensors still hold (Note [Retired
  /// plugins]): their memory is still the device's, so memory_stats() and empty_cache()
  /// count them too.
  std::vector<std::shared_ptr<LoadedPlugin>> retired(const std::string& type);
  /// Changes whenever the set of loaded plugins does (a load, reset()): what caches of
  /// lookups compare against.
  std::uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }

 private:
  void discover_locked();
  // Loads one canonical path; records the outcome; returns the record. Throws
  // PluginLoadError only when `throw_on_error`.
  BackendStatus load_locked(const std::string& canonical, bool throw_on_error);

  std::mutex mutex_;
  std::atomic<std::uint64_t> generation_{1};
  bool discovered_ = false;
  std::vector<std::shared_ptr<LoadedPlugin>> plugins_;
  std::vector<BackendStatus> records_;
  std::vector<std::weak_ptr<LoadedPlugin>> retired_;  // pruned as they expire
};

/// The loaded plugin that owns `d` and checks that d's index exists. Throws
/// DeviceUnavailableError (no backend of that type, or 0 devices, with the reason) or
/// InvalidDeviceError (index out of range).
std::shared_ptr<LoadedPlugin> plugin_for(const Device& d);

/// The default stream of `d`, as plugin_for(d) checks it, through a per-thread cache of the
/// last device looked up (synchronize() in a loop costs a few loads, not a registry
/// search). Valid while the plugin stays loaded: unloading plugins while another thread
/// uses their devices is not supported.
Stream& default_stream_for(const Device& d);

}  // namespace hetero::detail
