// SPDX-License-Identifier: Apache-2.0
// The plugin's two exported entry points. HETERO_PLUGIN_NAME and HETERO_PLUGIN_VERSION
// come from hetero_add_backend(); the last argument names the vendor libraries used.
#include <hetero/sdk/plugin.hpp>

#include "template_backend.hpp"

HETERO_PLUGIN(hetero::template_backend::TemplateBackend, HETERO_PLUGIN_NAME, HETERO_PLUGIN_VERSION,
              std::string("no vendor library (host-memory reference)"))
