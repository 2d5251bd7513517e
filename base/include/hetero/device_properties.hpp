// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file device_properties.hpp
/// Plain data a backend reports about each of its devices (capabilities are data, one
/// documented field each).
#include <cstddef>
#include <cstdint>
#include <string>

namespace hetero {

/// What kind of processor a device is. try_gpu() and num_gpus() count DeviceKind::gpu only.
enum class DeviceKind : std::uint8_t {
  cpu = 0,          ///< host processor (also PoCL's OpenCL device)
  gpu = 1,          ///< a discrete or integrated graphics processor
  accelerator = 2,  ///< anything else (TPU, FPGA, ...)
};

/// "cpu", "gpu" or "accelerator".
inline const char* device_kind_name(DeviceKind k) noexcept {
  switch (k) {
    case DeviceKind::cpu:
      return "cpu";
    case DeviceKind::gpu:
      return "gpu";
    case DeviceKind::accelerator:
      return "accelerator";
  }
  return "unknown";
}

/// Description of one device, as nvidia-smi / cudaGetDeviceProperties report it.
struct DeviceProperties {
  std::string name;  ///< e.g. "NVIDIA H100 80GB HBM3" or the CPU model; never empty
  DeviceKind kind = DeviceKind::cpu;  ///< cpu, gpu or accelerator
  std::size_t total_memory = 0;       ///< bytes the device can hold
  std::size_t free_memory = 0;        ///< bytes free now (best effort)
  std::string compute_capability;     ///< e.g. "9.0"; empty where meaningless
  std::string driver_version;    ///< e.g. "13.0" (cudaDriverGetVersion); empty where meaningless
  std::string runtime_version;   ///< e.g. "13.0" (cudaRuntimeGetVersion); empty where meaningless
  int multiprocessor_count = 0;  ///< SMs, compute units or cores
};

/// What a device can do beyond the required interface.
struct Capabilities {
  bool async_copy = false;     ///< copies return before completion (queued on the stream)
  bool pinned_memory = false;  ///< page-locked host memory makes host copies asynchronous
  bool peer_copy = false;  ///< copy_device_to_device works between this backend's devices directly
  bool events = true;      ///< Stream::record / wait are real synchronisation points
  std::size_t max_allocation = 0;  ///< largest single allocation in bytes (0: total memory)
};

/// Allocation statistics of one device, in bytes unless the name says count.
struct MemoryStats {
  std::size_t allocated = 0;           ///< bytes in live buffers
  std::size_t reserved = 0;            ///< bytes held from the device (allocated + cached)
  std::size_t peak_allocated = 0;      ///< highest `allocated` since start
  std::uint64_t allocation_count = 0;  ///< number of allocations made from the device itself
  std::uint64_t pool_hits = 0;         ///< allocations served from a cache without the device
};

}  // namespace hetero
