// SPDX-License-Identifier: Apache-2.0
// Entry points of libhetero-cpu.so.
#include <hetero/sdk/plugin.hpp>

#include "cpu_backend.hpp"
#include "openblas_gemm.hpp"

HETERO_PLUGIN(hetero::cpu::CpuBackend, HETERO_PLUGIN_NAME, HETERO_PLUGIN_VERSION,
              hetero::cpu::blas_version())
