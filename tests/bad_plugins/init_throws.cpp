// A plugin whose initialisation throws: reported with the exception's message.
#include <hetero/sdk/plugin.hpp>

HETERO_PLUGIN_EXPORT const HeteroPluginInfo* hetero_plugin_info() {
  static const HeteroPluginInfo info{sizeof(HeteroPluginInfo),
                                     HETERO_INTERFACE_VERSION_MAJOR,
                                     HETERO_INTERFACE_VERSION_MINOR,
                                     "initthrows",
                                     "0.0.1",
                                     HETERO_COMPILER_ID,
                                     HETERO_CXX_STDLIB_ID,
                                     ""};
  return &info;
}
HETERO_PLUGIN_EXPORT hetero::Backend* hetero_plugin_create() {
  throw hetero::Error("simulated driver initialisation failure");
}
