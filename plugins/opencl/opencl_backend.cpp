// SPDX-License-Identifier: Apache-2.0
#include "opencl_backend.hpp"

#include <vector>

#include <hetero/error.hpp>
#include <hetero/internal_assert.hpp>

#include "clblast_gemm.hpp"
#include "kernels.hpp"
#include "opencl_buffer.hpp"
#include "opencl_check.hpp"
#include "opencl_memory.hpp"

namespace hetero::opencl {
namespace {

std::vector<cl_platform_id> platforms(cl_int& status) {
  cl_uint count = 0;
  status = clGetPlatformIDs(0, nullptr, &count);
  if (status != CL_SUCCESS || count == 0) return {};
  std::vector<cl_platform_id> ids(count);
  status = clGetPlatformIDs(count, ids.data(), nullptr);
  if (status != CL_SUCCESS) return {};
  return ids;
}

std::vector<cl_device_id> devices_of(cl_platform_id platform) {
  cl_uint count = 0;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count == 0)
    return {};
  std::vector<cl_device_id> ids(count);
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr) != CL_SUCCESS)
    return {};
  return ids;
}

}  // namespace

OpenClBackend::OpenClBackend() {
  cl_int status = CL_SUCCESS;
  const auto ids = platforms(status);
  if (ids.empty()) {
    reason_ = status == CL_SUCCESS
                  ? "no OpenCL platform found"
                  : "clGetPlatformIDs: " + status_name(status) + " (no OpenCL driver installed?)";
    return;
  }
  std::string skipped;
  for (cl_platform_id platform : ids) {
    const auto device_ids = devices_of(platform);
    if (device_ids.empty()) continue;
    try {
      auto context = std::make_shared<PlatformContext>(platform, device_ids);
      for (cl_device_id id : device_ids)
        devices_.push_back(
            std::make_unique<OpenClDevice>(context, id, static_cast<int>(devices_.size())));
    } catch (const Error& e) {
      skipped += std::string(skipped.empty() ? "" : "; ") + e.what();
    }
  }
  if (devices_.empty())
    reason_ = skipped.empty() ? "no OpenCL device found (is POCL_CACHE_DIR writable?)" : skipped;
}

OpenClBackend::~OpenClBackend() = default;

bool OpenClBackend::supports(OpRef op, DType dtype, int device) const {
  // float64 (elements, and the double accumulator of normal random numbers) needs
  // cl_khr_fp64, which a device may lack.
  const bool fp64 = devices_[static_cast<std::size_t>(device)]->fp64;
  if (dtype == DType::float64 && !fp64) return false;
  if (op == OpRef(RandomDistribution::normal) && !fp64) return false;
  return Backend::supports(op, dtype, device);
}

bool OpenClBackend::reduces_into(ReductionOp op, DType in_dtype, DType out_dtype, int) const {
  return op == ReductionOp::sum && out_dtype == DType::int64 &&
         (in_dtype == DType::int8 || in_dtype == DType::uint8 || in_dtype == DType::int32);
}

OpenClDevice& OpenClBackend::device(int index) const {
  // The core checks device indices (backend_calls.hpp); one policy: assert.
  HETERO_INTERNAL_ASSERT(index >= 0 && index < device_count(), "opencl backend: device index " +
                                                                   std::to_string(index) + " of " +
                                                                   std::to_string(device_count()));
  return *devices_[static_cast<std::size_t>(index)];
}

DeviceProperties OpenClBackend::device_properties(int index) const {
  const OpenClDevice& d = device(index);
  DeviceProperties p = d.properties;
  // OpenCL cannot report free memory; what this process has not allocated is the estimate.
  const std::size_t used = d.memory->stats().allocated;
  p.free_memory = used < p.total_memory ? p.total_memory - used : 0;
  return p;
}

Capabilities OpenClBackend::capabilities(int index) const { return device(index).capabilities; }

MemoryStats OpenClBackend::memory_stats(int index) const { return device(index).memory->stats(); }

std::unique_ptr<Buffer> OpenClBackend::allocate(int index, std::size_t bytes) {
  OpenClDevice& d = device(index);
  if (bytes > d.capabilities.max_allocation)
    throw OutOfMemoryError("opencl:" + std::to_string(index) + " (" + d.properties.name +
                           "): cannot allocate " + std::to_string(bytes) +
                           " bytes (above CL_DEVICE_MAX_MEM_ALLOC_SIZE, " +
                           std::to_string(d.capabilities.max_allocation) + " bytes)");
  return allocate_buffer(d, bytes, "memory");
}

void OpenClBackend::empty_cache(int index) { device(index).memory->empty_cache(); }

Stream& OpenClBackend::default_stream(int index) { return device(index).stream; }

void OpenClBackend::copy_host_to_device(const void* src, Buffer& dst, std::size_t dst_offset,
                                        std::size_t bytes, Stream& stream) {
  HETERO_CL_CHECK(clEnqueueWriteBuffer(device_of(stream).stream.queue(), mem_of(dst), CL_FALSE,
                                       dst_offset, bytes, src, 0, nullptr, nullptr));
}

void OpenClBackend::copy_device_to_host(const Buffer& src, std::size_t src_offset, void* dst,
                                        std::size_t bytes, Stream& stream) {
  HETERO_CL_CHECK(clEnqueueReadBuffer(device_of(stream).stream.queue(), mem_of(src), CL_FALSE,
                                      src_offset, bytes, dst, 0, nullptr, nullptr));
}

void OpenClBackend::copy_device_to_device(const Buffer& src, std::size_t src_offset, Buffer& dst,
                                          std::size_t dst_offset, std::size_t bytes,
                                          Stream& stream) {
  OpenClDevice& to = device_of(stream);
  OpenClDevice& from = device(src.device());
  if (from.context == to.context) {
    if (&from != &to) {
      // Order after the work already queued on the source device.
      auto marker = from.stream.record();
      to.stream.wait(*marker);
    }
    HETERO_CL_CHECK(clEnqueueCopyBuffer(to.stream.queue(), mem_of(src), mem_of(dst), src_offset,
                                        dst_offset, bytes, 0, nullptr, nullptr));
    return;
  }
  // Two platforms share nothing: stage through the host, blocking.
  std::vector<unsigned char> staging(bytes);
  HETERO_CL_CHECK(clEnqueueReadBuffer(from.stream.queue(), mem_of(src), CL_TRUE, src_offset, bytes,
                                      staging.data(), 0, nullptr, nullptr));
  HETERO_CL_CHECK(clEnqueueWriteBuffer(to.stream.queue(), mem_of(dst), CL_TRUE, dst_offset, bytes,
                                       staging.data(), 0, nullptr, nullptr));
}

void OpenClBackend::fill(const StridedView& out, Scalar value, Stream& stream) {
  kernels::fill(device_of(stream), out, value);
}

void OpenClBackend::cast(const StridedView& src, const StridedView& dst, Stream& stream) {
  kernels::cast(device_of(stream), src, dst);
}

void OpenClBackend::unary(UnaryOp op, const StridedView& in, const StridedView& out,
                          Stream& stream) {
  kernels::unary(device_of(stream), op, in, out);
}

void OpenClBackend::binary(BinaryOp op, const StridedView& a, const StridedView& b,
                           const StridedView& out, Stream& stream) {
  kernels::binary(device_of(stream), op, a, b, out);
}

void OpenClBackend::ternary(TernaryOp op, const StridedView& c, const StridedView& x,
                            const StridedView& y, const StridedView& out, Stream& stream) {
  kernels::ternary(device_of(stream), op, c, x, y, out);
}

void OpenClBackend::gather(const StridedView& src, const StridedView& index, int dim,
                           const StridedView& out, Stream& stream) {
  kernels::gather(device_of(stream), src, index, dim, out);
}

void OpenClBackend::scatter_add(const StridedView& out, const StridedView& index, int dim,
                                const StridedView& src, Stream& stream) {
  kernels::scatter_add(device_of(stream), out, index, dim, src);
}

void OpenClBackend::reduce(ReductionOp op, const StridedView& in, const StridedView& out,
                           Stream& stream) {
  kernels::reduce(device_of(stream), op, in, out);
}

void OpenClBackend::random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
                           std::uint64_t offset, Stream& stream) {
  kernels::random(device_of(stream), dist, out, seed, offset);
}

void OpenClBackend::gemm(const GemmArgs& args, Stream& stream) {
  clblast_gemm(device_of(stream), args);
}

std::string vendor_versions() {
  std::string out;
  cl_int status = CL_SUCCESS;
  try {
    for (cl_platform_id p : platforms(status))
      out += (out.empty() ? "" : ", ") + platform_string(p, CL_PLATFORM_VERSION);
  } catch (const Error&) {
  }
  return (out.empty() ? std::string("OpenCL (no platform)") : out) + ", " + clblast_version();
}

}  // namespace hetero::opencl
