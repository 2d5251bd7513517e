// SPDX-License-Identifier: Apache-2.0
// A plugin claiming another C++ standard library: must be refused naming both.
#include <hetero/sdk/plugin.hpp>

HETERO_PLUGIN_EXPORT const HeteroPluginInfo* hetero_plugin_info() {
  static const HeteroPluginInfo info{sizeof(HeteroPluginInfo),
                                     HETERO_INTERFACE_VERSION_MAJOR,
                                     HETERO_INTERFACE_VERSION_MINOR,
                                     "wrongstdlib",
                                     "0.0.1",
                                     "Clang 99.0.0",
                                     "libc++ abi 1",
                                     ""};
  return &info;
}
HETERO_PLUGIN_EXPORT hetero::Backend* hetero_plugin_create() { return nullptr; }
