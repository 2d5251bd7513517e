// SPDX-License-Identifier: Apache-2.0
#pragma once
// The state of one OpenCL platform (its context and compiled programs) and of one
// device (its queue, memory counter and properties). Devices of one platform share the
// context, so buffers, events and programs are valid across them.
#include <memory>
#include <string>
#include <vector>

#include <hetero/device_properties.hpp>
#include <hetero/sdk/caching_allocator.hpp>

#include "opencl.hpp"
#include "opencl_stream.hpp"
#include "program_cache.hpp"

namespace hetero::opencl {

/// One cl_context over all devices of a platform. Not copyable.
class PlatformContext {
 public:
  /// Creates the context; throws hetero::Error when the platform refuses.
  PlatformContext(cl_platform_id platform, std::vector<cl_device_id> devices);
  ~PlatformContext();
  PlatformContext(const PlatformContext&) = delete;
  PlatformContext& operator=(const PlatformContext&) = delete;

  cl_context get() const noexcept { return context_; }
  ProgramCache& programs() noexcept { return *programs_; }

 private:
  cl_context context_ = nullptr;
  std::unique_ptr<ProgramCache> programs_;
};

/// One OpenCL device as hetero's device `index`.
struct OpenClDevice {
  OpenClDevice(std::shared_ptr<PlatformContext> context, cl_device_id id, int index);

  std::shared_ptr<PlatformContext> context;
  cl_device_id id;
  int index;
  OpenClStream stream;
  std::shared_ptr<CachingAllocator> memory;  ///< the device's pool (opencl_memory.hpp)
  DeviceProperties properties;               ///< free_memory filled in on query
  Capabilities capabilities;
  bool fp64 = false;  ///< cl_khr_fp64: float64 tensors and double accumulation
};

/// A string-valued clGetDeviceInfo / clGetPlatformInfo query, trimmed.
std::string device_string(cl_device_id device, cl_device_info what);
std::string platform_string(cl_platform_id platform, cl_platform_info what);

}  // namespace hetero::opencl
