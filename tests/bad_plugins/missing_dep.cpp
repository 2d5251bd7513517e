// SPDX-License-Identifier: Apache-2.0
// A plugin whose own dependency (libhetero_test_dep.so) cannot be found at load time.
#include <hetero/sdk/plugin.hpp>

extern "C" int hetero_test_dep_value();

HETERO_PLUGIN_EXPORT const HeteroPluginInfo* hetero_plugin_info() {
  static const HeteroPluginInfo info{sizeof(HeteroPluginInfo),
                                     HETERO_INTERFACE_VERSION_MAJOR,
                                     HETERO_INTERFACE_VERSION_MINOR,
                                     "missingdep",
                                     "0.0.1",
                                     HETERO_COMPILER_ID,
                                     HETERO_CXX_STDLIB_ID,
                                     ""};
  return hetero_test_dep_value() ? &info : nullptr;
}
HETERO_PLUGIN_EXPORT hetero::Backend* hetero_plugin_create() { return nullptr; }
