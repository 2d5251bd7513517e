// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file default_device.hpp
/// The default device of factories (ones, zeros, ...) when none is given: cpu unless a
/// DeviceGuard or set_default_device says otherwise (as torch.cuda.device / TF's
/// `with tf.device`).
#include <optional>

#include <hetero/device.hpp>
#include <hetero/export.hpp>

namespace hetero {

/// The calling thread's default device: the innermost live DeviceGuard's, else the
/// process default (set_default_device), initially cpu.
HETERO_API Device default_device();

/// Sets the process-wide default device used where no DeviceGuard is active. Does not
/// check that the device exists. Thread-safe.
HETERO_API void set_default_device(const Device& d);

/// Scopes the default device of factories on this thread (RAII; nests). Not copyable.
class HETERO_API DeviceGuard {
 public:
  /// Makes `d` the default device until this guard is destroyed (the previous one then
  /// comes back).
  explicit DeviceGuard(const Device& d);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  std::optional<Device> previous_;
};

}  // namespace hetero
