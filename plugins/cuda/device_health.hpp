// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which CUDA devices are lost. A sticky error (cuda_check.cpp) marks its device lost;
// every later call on that device fails fast with the original reason, while other
// devices and other backends keep working.
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>

namespace hetero::cuda {

class DeviceHealth {
 public:
  /// Records that `device` (-1: unknown, all devices) is unusable because of `reason`.
  void mark_lost(int device, const std::string& reason);
  /// Throws DeviceUnavailableError naming the reason if `device` is lost. Thread-safe;
  /// one atomic load while no device is lost (it runs before every operation).
  void check(int device) const {
    if (any_lost_.load(std::memory_order_acquire)) check_lost(device);
  }
  /// The reason `device` is lost, or empty.
  std::string lost_reason(int device) const;

 private:
  void check_lost(int device) const;

  std::atomic<bool> any_lost_{false};
  mutable std::mutex mutex_;
  std::unordered_map<int, std::string> lost_;
};

/// The plugin's single DeviceHealth; never destroyed, so usable from any destructor.
DeviceHealth& device_health();

}  // namespace hetero::cuda
