// SPDX-License-Identifier: Apache-2.0
#include "opencl_device.hpp"

#include "opencl_check.hpp"
#include "opencl_memory.hpp"

namespace hetero::opencl {
namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ' || s.back() == '\n')) s.pop_back();
  const auto first = s.find_first_not_of(' ');
  return first == std::string::npos ? std::string() : s.substr(first);
}

template <class T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  HETERO_CL_CHECK(clGetDeviceInfo(device, what, sizeof(T), &value, nullptr));
  return value;
}

DeviceKind kind_of(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return DeviceKind::gpu;
  if (type & CL_DEVICE_TYPE_CPU) return DeviceKind::cpu;  // PoCL's device: not a GPU for try_gpu
  return DeviceKind::accelerator;
}

}  // namespace

// The two-call pattern of OpenCL's string queries: ask the size, then the bytes.
// `get(size, buffer, size_out)` is one clGet*Info call with its object and name bound.
template <class Get>
std::string info_string(const char* what, Get get) {
  std::size_t size = 0;
  cl_int status = get(0, nullptr, &size);
  if (status != CL_SUCCESS) fail(status, what, __FILE__, __LINE__);
  std::string s(size, '\0');
  status = get(size, s.data(), nullptr);
  if (status != CL_SUCCESS) fail(status, what, __FILE__, __LINE__);
  return trimmed(s);
}

std::string device_string(cl_device_id device, cl_device_info what) {
  return info_string("clGetDeviceInfo", [&](std::size_t n, void* p, std::size_t* out) {
    return clGetDeviceInfo(device, what, n, p, out);
  });
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  return info_string("clGetPlatformInfo", [&](std::size_t n, void* p, std::size_t* out) {
    return clGetPlatformInfo(platform, what, n, p, out);
  });
}

PlatformContext::PlatformContext(cl_platform_id platform, std::vector<cl_device_id> devices) {
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         reinterpret_cast<cl_context_properties>(platform), 0};
  cl_int status = CL_SUCCESS;
  context_ = clCreateContext(props, static_cast<cl_uint>(devices.size()), devices.data(), nullptr,
                             nullptr, &status);
  HETERO_CL_CHECK(status);
  programs_ = std::make_unique<ProgramCache>(context_, std::move(devices));
}

PlatformContext::~PlatformContext() {
  programs_.reset();
  if (context_) clReleaseContext(context_);
}

OpenClDevice::OpenClDevice(std::shared_ptr<PlatformContext> ctx, cl_device_id device_id,
                           int device_index)
    : context(std::move(ctx)),
      id(device_id),
      index(device_index),
      stream(context->get(), device_id, device_index),
      memory(make_device_memory(context->get(), static_cast<std::size_t>(device_value<cl_ulong>(
                                                    id, CL_DEVICE_GLOBAL_MEM_SIZE)))) {
  properties.name = device_string(id, CL_DEVICE_NAME);
  properties.kind = kind_of(device_value<cl_device_type>(id, CL_DEVICE_TYPE));
  properties.total_memory =
      static_cast<std::size_t>(device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE));
  properties.driver_version = device_string(id, CL_DRIVER_VERSION);
  properties.runtime_version = device_string(id, CL_DEVICE_VERSION);
  properties.multiprocessor_count =
      static_cast<int>(device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS));
  fp64 = device_value<cl_device_fp_config>(id, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  capabilities.async_copy = true;
  capabilities.pinned_memory = false;
  capabilities.peer_copy =
      true;  // within the platform's context; across platforms the backend stages
  capabilities.events = true;
  capabilities.max_allocation =
      static_cast<std::size_t>(device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
}

}  // namespace hetero::opencl
