// SPDX-License-Identifier: Apache-2.0
// Entry points of libhetero-cuda.so.
#include <hetero/sdk/plugin.hpp>

#include "cuda_backend.hpp"
#include "versions.hpp"

HETERO_PLUGIN(hetero::cuda::CudaBackend, HETERO_PLUGIN_NAME, HETERO_PLUGIN_VERSION,
              hetero::cuda::vendor_versions())
