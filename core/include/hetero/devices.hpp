// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file devices.hpp
/// Queries over all loaded backends: counts, try_gpu / try_all_gpus (the chapter's
/// fallbacks), device_info (nvidia-smi's place) and synchronize.
#include <cstddef>
#include <string>
#include <vector>

#include <hetero/device.hpp>
#include <hetero/device_properties.hpp>
#include <hetero/export.hpp>

namespace hetero {

/// Number of devices of `type` ("cuda", "cpu", ...). 0, never an exception, when no
/// loaded backend provides that type or it has no device (as torch.cuda.device_count()).
HETERO_API int device_count(const std::string& type);

/// Number of GPU-kind devices over all loaded backends (as npx.num_gpus()).
HETERO_API int num_gpus();

/// The i-th GPU-kind device if it exists, else cpu (d2l's try_gpu). Falls back
/// silently; HETERO_LOG=info prints why once; HETERO_REQUIRE_GPU=1 makes the fallback a
/// DeviceUnavailableError carrying the backends' reasons.
HETERO_API Device try_gpu(int i = 0);

/// All GPU-kind devices, or {cpu} when there are none (d2l's try_all_gpus).
HETERO_API std::vector<Device> try_all_gpus();

/// Every device of every loaded backend, in backend then index order.
HETERO_API std::vector<Device> all_devices();

/// Description of one device, as nvidia-smi shows it.
struct DeviceInfo {
  Device device = Device::cpu();  ///< the device listed
  std::string backend;            ///< plugin name
  DeviceProperties properties;    ///< name, kind, memory (bytes), compute capability, driver
  Capabilities capabilities;      ///< what its backend offers (pinned memory, peer copies, ...)
  MemoryStats memory;             ///< allocation statistics (bytes)
};

/// Properties of `d`. Throws DeviceUnavailableError when no loaded backend provides
/// d's type, InvalidDeviceError when the index does not exist.
HETERO_API DeviceInfo device_info(const Device& d);

/// Allocation statistics of `d` (bytes); throws as device_info. Counts the memory that
/// tensors made before unload_plugins() still hold on d (allocated, reserved and the counts
/// are summed; peak_allocated is the largest of each instance's peak and the sum).
HETERO_API MemoryStats memory_stats(const Device& d);

/// Returns the cached, unused memory of d's backend allocator to the device, as
/// torch.cuda.empty_cache(); memory_stats(d).reserved then equals what live tensors hold.
/// Throws as device_info.
HETERO_API void empty_cache(const Device& d);

/// Blocks until all work queued on d's default stream has completed (as
/// torch.cuda.synchronize(d)). Throws as device_info.
HETERO_API void synchronize(const Device& d);

}  // namespace hetero
