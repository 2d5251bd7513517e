// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file device.hpp
/// hetero::Device — a value naming one device: a backend's device type plus an index.
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <hetero/export.hpp>

namespace hetero {

/// A device: type (an open name a plugin registers, e.g. "cpu", "cuda", "opencl") and
/// index >= 0. Parsed from "cpu", "cuda", "cuda:1" as torch.device parses them: "cuda"
/// means "cuda:0". Copyable, comparable and hashable by value; constructing one does not
/// check that the device exists (using it does). Thread-safe (immutable).
class HETERO_API Device {
 public:
  /// Parses "type" or "type:index". The type is lower-case letters, digits and '_'
  /// starting with a letter; the index decimal digits. Throws InvalidDeviceError naming
  /// the text for anything else ("", "cuda:-1", "gpu:x", "cuda:0:1"). Implicit, as
  /// torch::Device, so that a device may be spelled "cuda:1".
  /// @{
  Device(std::string_view text);  // NOLINT(google-explicit-constructor): as torch::Device
  Device(const char* text) : Device(std::string_view(text)) {}         // NOLINT
  Device(const std::string& text) : Device(std::string_view(text)) {}  // NOLINT
  /// @}
  /// Type and index; throws InvalidDeviceError for a malformed type or index < 0.
  Device(std::string_view type, int index);

  /// The CPU device `cpu:index` (cpu == cpu:0).
  static Device cpu(int index = 0) { return Device("cpu", index); }
  /// The CUDA device `cuda:index` (as torch::Device(torch::kCUDA, index)).
  static Device cuda(int index = 0) { return Device("cuda", index); }

  /// The backend's name: "cpu", "cuda", "opencl", or a third-party plugin's.
  const std::string& type() const noexcept { return type_; }
  /// The device's index within its type, >= 0.
  int index() const noexcept { return index_; }
  /// Whether type() is "cpu".
  bool is_cpu() const noexcept { return type_ == "cpu"; }
  /// "cpu" for cpu:0 (as PyTorch prints it), "type:index" otherwise.
  std::string str() const;

  /// Same type and index (cpu equals cpu:0).
  /// @{
  friend bool operator==(const Device& a, const Device& b) noexcept {
    return a.index_ == b.index_ && a.type_ == b.type_;
  }
  friend bool operator!=(const Device& a, const Device& b) noexcept { return !(a == b); }
  /// @}

 private:
  std::string type_;
  int index_ = 0;
};

/// Prints Device::str().
HETERO_API std::ostream& operator<<(std::ostream& os, const Device& d);
/// Prints a list as PyTorch prints one: "[cuda:0, cuda:1]".
HETERO_API std::ostream& operator<<(std::ostream& os, const std::vector<Device>& ds);

}  // namespace hetero

/// Hashes a Device by type and index, for unordered containers keyed by device.
template <>
struct std::hash<hetero::Device> {
  /// The hash of d.type() and d.index().
  std::size_t operator()(const hetero::Device& d) const noexcept {
    return std::hash<std::string>{}(d.type()) * 31u + static_cast<std::size_t>(d.index());
  }
};
