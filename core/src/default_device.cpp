// SPDX-License-Identifier: Apache-2.0
#include <hetero/default_device.hpp>

#include <mutex>

namespace hetero {
namespace {

std::mutex process_default_mutex;
Device& process_default() {
  static Device d = Device::cpu();
  return d;
}
thread_local std::optional<Device> scoped_default;

}  // namespace

Device default_device() {
  if (scoped_default) return *scoped_default;
  std::lock_guard lock(process_default_mutex);
  return process_default();
}

void set_default_device(const Device& d) {
  std::lock_guard lock(process_default_mutex);
  process_default() = d;
}

DeviceGuard::DeviceGuard(const Device& d) : previous_(scoped_default) { scoped_default = d; }

DeviceGuard::~DeviceGuard() { scoped_default = previous_; }

}  // namespace hetero
