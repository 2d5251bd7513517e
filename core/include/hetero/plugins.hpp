// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file plugins.hpp
/// Plugin discovery and status. Plugins are found in the core's own install tree
/// (lib/hetero/plugins beside libhetero_core.so) and in HETERO_PLUGIN_PATH
/// (colon-separated absolute directories), never in the current directory.
/// HETERO_BACKENDS=cpu,opencl restricts which backends are used; HETERO_PLUGIN_DISCOVERY=0
/// turns discovery off, leaving only load_plugin() (the conformance tests use this).
/// Discovery happens once, on first use, and is thread-safe. A loaded backend itself
/// (find_backend) is for implementers: <hetero/sdk/find_backend.hpp>.
#include <memory>
#include <string>
#include <vector>

#include <hetero/export.hpp>

namespace hetero {

/// One plugin file found or loaded, or one search-path entry that could not be used.
struct BackendStatus {
  std::string name;               ///< backend name from the info record; empty if unreadable
  std::string path;               ///< canonical file path (or the directory for a bad path entry)
  bool loaded = false;            ///< the backend is usable (it may still have 0 devices)
  int devices = 0;                ///< number of devices it reports
  std::string reason;             ///< why not loaded, or why 0 devices; empty otherwise
  std::string version;            ///< plugin version from the info record
  std::string interface_version;  ///< "major.minor" from the info record
  int interface_minor = 0;        ///< the minor of interface_version, as a number
  std::string compiler;           ///< compiler identity from the info record
  std::string vendor_libraries;   ///< e.g. "OpenBLAS 0.3.21 ..."
};

/// One record per plugin file found or loaded, and per unusable HETERO_PLUGIN_PATH entry.
/// "Unavailable" is not an error: this never throws for a bad plugin.
HETERO_API std::vector<BackendStatus> backend_status();

/// Loads the plugin at `path` (relative paths are taken from the current directory and
/// canonicalised) and returns its record. Loading a file already loaded returns its
/// record. Throws PluginLoadError naming the path and reason (missing file, not a
/// library, wrong architecture, missing entry point or dependency, interface or C++
/// library mismatch, initialisation failure, a backend name already taken); the failure
/// is also recorded in backend_status().
HETERO_API BackendStatus load_plugin(const std::string& path);

/// Drops the registry's references to all plugins so that the next query discovers them
/// again. Objects still alive (tensors, buffers) keep their plugin library loaded
/// (Note [Plugin lifetime]) and stay valid.
HETERO_API void unload_plugins();

/// The directory searched by default: lib/hetero/plugins beside libhetero_core.so.
HETERO_API std::string default_plugin_dir();

}  // namespace hetero
