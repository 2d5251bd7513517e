// SPDX-License-Identifier: Apache-2.0
#pragma once
// Updating the counters of transfer_stats.hpp (called by the copy ladder and synchronize).
#include <cstddef>

#include <hetero/device.hpp>

namespace hetero::detail {

enum class CopyKind { host_to_device, device_to_host, device_to_device, staged };

/// Counts one copy of `bytes` on device `d`.
void count_copy(const Device& d, CopyKind kind, std::size_t bytes);
/// Counts one host wait on device `d`.
void count_host_sync(const Device& d);

}  // namespace hetero::detail
