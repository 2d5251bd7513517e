// SPDX-License-Identifier: Apache-2.0
// A plugin whose initialisation throws: reported with the exception's message.
#include "minimal_backend.hpp"

HETERO_TEST_PLUGIN_INFO("initthrows")
HETERO_PLUGIN_EXPORT hetero::Backend* hetero_plugin_create() {
  throw hetero::Error("simulated driver initialisation failure");
}
