// SPDX-License-Identifier: Apache-2.0
#pragma once
// Device memory of the opencl backend: each device's CachingAllocator over clCreateBuffer /
// clReleaseMemObject (OpenCL keeps a released cl_mem until the commands queued on it are
// done, so releasing is stream-ordered by the runtime; a cached cl_mem is handed out again
// in queue order, Note [Stream-ordered reuse] in caching_allocator.hpp).
#include <cstddef>
#include <memory>
#include <string>

#include <hetero/sdk/caching_allocator.hpp>

#include "opencl.hpp"
#include "opencl_buffer.hpp"

namespace hetero::opencl {

struct OpenClDevice;

/// The pool of `context`'s memory for one device of `total_memory` bytes (pooling per
/// HETERO_MEMORY_POOL, cache bounded by memory_cache_limit()).
std::shared_ptr<CachingAllocator> make_device_memory(cl_context context, std::size_t total_memory);

/// A buffer of `bytes` bytes on `device` from its pool. On OpenCL's out-of-memory codes
/// empties the cache, waits for the device's queue and retries once, then throws
/// OutOfMemoryError naming the device, `what` the memory is for, and the pool's state;
/// other OpenCL errors throw hetero::Error.
std::unique_ptr<OpenClBuffer> allocate_buffer(OpenClDevice& device, std::size_t bytes,
                                              const std::string& what);

}  // namespace hetero::opencl
