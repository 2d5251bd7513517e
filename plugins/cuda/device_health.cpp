// SPDX-License-Identifier: Apache-2.0
#include "device_health.hpp"

#include <hetero/error.hpp>

namespace hetero::cuda {

void DeviceHealth::mark_lost(int device, const std::string& reason) {
  std::lock_guard lock(mutex_);
  lost_.try_emplace(device, reason);  // the first failure is the cause; keep it
  any_lost_.store(true, std::memory_order_release);
}

std::string DeviceHealth::lost_reason(int device) const {
  if (!any_lost_.load(std::memory_order_acquire)) return {};
  std::lock_guard lock(mutex_);
  if (auto it = lost_.find(device); it != lost_.end()) return it->second;
  if (auto it = lost_.find(-1); it != lost_.end()) return it->second;
  return {};
}

void DeviceHealth::check_lost(int device) const {
  const std::string reason = lost_reason(device);
  if (!reason.empty())
    throw DeviceUnavailableError("device cuda:" + std::to_string(device) +
                                 " was lost after an earlier error: " + reason);
}

DeviceHealth& device_health() {
  // Immortal (never destroyed, freed with the process): buffers and streams freed by other
  // static destructors at exit may still check it (docs/design/plugin-lifetime.md).
  static DeviceHealth* const health = new DeviceHealth;
  return *health;
}

}  // namespace hetero::cuda
