// SPDX-License-Identifier: Apache-2.0
#pragma once
// Version strings of the CUDA libraries the plugin runs on (info record, device properties).
#include <string>

namespace hetero::cuda {

/// 13000 -> "13.0" (the encoding of cudaDriverGetVersion / cudaRuntimeGetVersion).
std::string version_string(int encoded);

/// "CUDA runtime 13.0, cuBLAS 13.1.0": readable without a driver or GPU.
std::string vendor_versions();

}  // namespace hetero::cuda
