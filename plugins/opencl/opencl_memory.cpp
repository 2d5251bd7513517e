#include "opencl_memory.hpp"

#include <hetero/error.hpp>

#include "cl_check.hpp"
#include "opencl_device.hpp"

namespace hetero::opencl {

std::shared_ptr<CachingAllocator> make_device_memory(cl_context context) {
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
      memory_pool_enabled());
}

std::unique_ptr<OpenClBuffer> allocate_buffer(OpenClDevice& device, std::size_t bytes, const std::string& what) {
  CachingAllocator& memory = *device.memory;
  CachingAllocator::Block block = memory.allocate(bytes);
  if (!block.ptr) {
    memory.empty_cache();
    clFinish(device.stream.queue());  // let the runtime free what the released buffers held
    block = memory.allocate(bytes);
  }
  if (!block.ptr) {
    const MemoryStats s = memory.stats();
    throw OutOfMemoryError("opencl:" + std::to_string(device.index) + " (" + device.properties.name +
                           "): cannot allocate " + std::to_string(bytes) + " bytes of " + what + " (" +
                           std::to_string(s.allocated) + " bytes in use of " +
                           std::to_string(device.properties.total_memory) + " bytes, largest allocation " +
                           std::to_string(device.capabilities.max_allocation) +
                           " bytes; the cache was emptied and the allocation retried once)");
  }
  return std::make_unique<OpenClBuffer>(block, bytes, device.index, device.memory);
}

}  // namespace hetero::opencl
