// SPDX-License-Identifier: Apache-2.0
// A plugin built against interface major 999: must be refused naming both versions.
#include <hetero/sdk/plugin.hpp>

HETERO_PLUGIN_EXPORT const HeteroPluginInfo* hetero_plugin_info() {
  static const HeteroPluginInfo info{
      sizeof(HeteroPluginInfo), 999, 0, "badversion", "0.0.1", HETERO_COMPILER_ID,
      HETERO_CXX_STDLIB_ID,     ""};
  return &info;
}
HETERO_PLUGIN_EXPORT hetero::Backend* hetero_plugin_create() { return nullptr; }
