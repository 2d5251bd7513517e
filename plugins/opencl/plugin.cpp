// SPDX-License-Identifier: Apache-2.0
// Entry points of libhetero-opencl.so. HETERO_PLUGIN_NAME/VERSION come from
// hetero_add_backend().
#include <hetero/sdk/plugin.hpp>

#include "opencl_backend.hpp"

HETERO_PLUGIN(hetero::opencl::OpenClBackend, HETERO_PLUGIN_NAME, HETERO_PLUGIN_VERSION,
              hetero::opencl::vendor_versions())
