// SPDX-License-Identifier: Apache-2.0
// A plugin whose info entry point throws something that is not a std::exception (an int):
// refused as a typed PluginLoadError, not an exception escaping discovery.
#include <hetero/sdk/plugin.hpp>

HETERO_PLUGIN_EXPORT const HeteroPluginInfo* hetero_plugin_info() { throw 42; }
