// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file host_device.hpp
/// HETERO_HOST_DEVICE marks SDK helpers that backends call from host code and from CUDA
/// device code (`__host__ __device__` under nvcc, nothing elsewhere). Device code that
/// uses them needs nvcc's --expt-relaxed-constexpr (they use std::numeric_limits).
#if defined(__CUDACC__)
#define HETERO_HOST_DEVICE __host__ __device__
#else
#define HETERO_HOST_DEVICE
#endif
