// SPDX-License-Identifier: Apache-2.0
#include "opencl_memory.hpp"

#include <hetero/error.hpp>
#include <hetero/sdk/memory_policy.hpp>

#include "opencl_check.hpp"
#include "opencl_device.hpp"

namespace hetero::opencl {

std::shared_ptr<CachingAllocator> make_device_memory(cl_context context, std::size_t total_memory) {
  return std::make_shared<CachingAllocator>(
      CachingAllocator::RawMemory{
          [context](std::size_t bytes) -> void* {
            cl_int status = CL_SUCCESS;
            cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
            if (status == CL_SUCCESS) return mem;
            if (is_out_of_memory(status)) return nullptr;
            fail(status, "clCreateBuffer", __FILE__, __LINE__);
          },
          [](void* mem, std::size_t) { clReleaseMemObject(static_cast<cl_mem>(mem)); }},
      memory_pool_enabled(), memory_cache_limit(total_memory));
}

std::unique_ptr<OpenClBuffer> allocate_buffer(OpenClDevice& device, std::size_t bytes,
                                              const std::string& what) {
  CachingAllocator& memory = *device.memory;
  // Note [Out-of-memory policy]; clFinish lets the runtime free what released buffers held.
  const CachingAllocator::Block block = allocate_with_retry([&] { return memory.allocate(bytes); },
                                                            [&] {
                                                              memory.empty_cache();
                                                              clFinish(device.stream.queue());
                                                            });
  if (!block)
    throw out_of_memory_error(
        {"opencl:" + std::to_string(device.index) + " (" + device.properties.name + ")", bytes, 0,
         device.properties.total_memory, memory.stats().reserved, what});
  return std::make_unique<OpenClBuffer>(block, bytes, device.index, device.memory);
}

}  // namespace hetero::opencl
