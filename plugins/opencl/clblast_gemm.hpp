// SPDX-License-Identifier: Apache-2.0
#pragma once
// Backend::gemm on CLBlast: clblast::Gemm (batch 1) or clblast::GemmStridedBatched, in
// row-major layout directly (CLBlast takes Layout::kRowMajor, unlike cuBLAS), with the
// buffers' element offsets passed through. k = 0 scales C by beta with our own kernel.
#include <string>

#include <hetero/sdk/kernel_args.hpp>

#include "opencl_device.hpp"

namespace hetero::opencl {

/// Enqueues the GEMM on dev's queue (float32, float64, float16/bfloat16 through float32).
/// float64 without cl_khr_fp64 never arrives: the backend's supports() declines it
/// (opencl_backend.cpp) and the core raises NotImplementedError; another dtype is an
/// internal assertion. Throws hetero::Error naming the CLBlast status when CLBlast fails.
void clblast_gemm(OpenClDevice& dev, const GemmArgs& args);

/// "CLBlast 1.5.3" (the version the plugin was built against).
std::string clblast_version();

}  // namespace hetero::opencl
