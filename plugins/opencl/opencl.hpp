// SPDX-License-Identifier: Apache-2.0
#pragma once
// The OpenCL API at the version this plugin targets (1.2: in-order queues, markers and
// barriers with wait lists; every OpenCL 1.2+ platform, PoCL included, provides it).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
