// SPDX-License-Identifier: Apache-2.0
#pragma once
// A loaded plugin: its library, the backend it created and its status record.
// Note [Plugin lifetime]: everything the core obtains from a plugin (the backend, its
// buffers, streams and events) is held next to a shared_ptr<LoadedPlugin>, which holds
// the library. Members are declared so the backend is destroyed before the library is
// released; Storage does the same for buffers. So a library is unloaded only after the
// last object it created is gone, and always from core code.
#include <atomic>
#include <memory>
#include <string>

#include <hetero/plugins.hpp>
#include <hetero/sdk/backend.hpp>
#include <hetero/sdk/capabilities.hpp>

#include "op_support.hpp"

namespace boost::dll {
class shared_library;
}

namespace hetero::detail {

struct LoadedPlugin {
  std::shared_ptr<boost::dll::shared_library> library;  // released last
  std::unique_ptr<Backend> backend;                     // destroyed first
  BackendStatus status;
  int interface_minor = 0;  // the plugin's interface minor (its info record)
  OpSupport support;        // what its backend runs, per device (built when it loads)
  // unload_plugins() let go of it while tensors still hold it (Note [Retired plugins],
  // op_helpers.hpp): their work is synchronised before another plugin's kernels use them.
  std::atomic<bool> retired{false};

  LoadedPlugin() = default;
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;
  ~LoadedPlugin();

  /// Whether the plugin's vtable has `c`'s virtuals (Note [Optional capabilities]).
  bool has(OptionalCapability c) const noexcept { return has_capability(interface_minor, c); }
};

/// Plugin instances retired by unload_plugins() and not yet destroyed (Note [Retired
/// plugins]): while it is not 0, every kernel completes before its call returns.
extern std::atomic<int> retired_plugins_alive;

/// Reads only the info record of the plugin at canonical `path` into `status`
/// (name, version, ...), then checks interface version and C++ library identity.
/// Returns the opened library. Throws PluginLoadError with the path and reason.
std::shared_ptr<boost::dll::shared_library> open_plugin(const std::string& path,
                                                        BackendStatus& status);

/// Creates the backend from an opened library. Throws PluginLoadError.
std::shared_ptr<LoadedPlugin> create_backend(std::shared_ptr<boost::dll::shared_library> lib,
                                             BackendStatus status);

}  // namespace hetero::detail
