// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file transfer_stats.hpp
/// Transfer and synchronisation counters per device: the chapter's warning ("copying
/// between devices is slow; a host read waits for the device") made observable. Logging
/// a loss per step with item() shows one host sync per step; accumulating it in a device
/// tensor and reading once per epoch shows one.
#include <cstdint>

#include <hetero/device.hpp>
#include <hetero/export.hpp>

namespace hetero {

/// Counts since process start or the last reset_transfer_stats(). Copies are counted on
/// the device whose memory they write (device_to_host: on the source device). For the
/// cpu device "host" and "device" memory are the same RAM; its copies are counted the
/// same way, so code behaves identically in the counters whatever try_gpu() returned.
struct TransferStats {
  std::uint64_t host_to_device = 0;        ///< copies from host memory into this device
  std::uint64_t host_to_device_bytes = 0;  ///< their bytes
  std::uint64_t device_to_host = 0;        ///< copies from this device to host memory
  std::uint64_t device_to_host_bytes = 0;  ///< their bytes
  std::uint64_t device_to_device = 0;      ///< copies into this device from a device of its backend
  std::uint64_t device_to_device_bytes = 0;  ///< their bytes
  std::uint64_t staged = 0;      ///< copies into this device staged through host memory (slow)
  std::uint64_t host_syncs = 0;  ///< times the host waited for this device: synchronize(),
                                 ///< item(), to_vector(), printing, pageable copies
};

/// The counters of `d` (zeros for a device that has done nothing). Thread-safe.
HETERO_API TransferStats transfer_stats(const Device& d);
/// Sets every device's counters to zero. Thread-safe.
HETERO_API void reset_transfer_stats();

}  // namespace hetero
