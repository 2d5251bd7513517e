// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file tensor_options.hpp
/// hetero::TensorOptions — device, dtype and pinned memory of a new tensor, as
/// torch::TensorOptions.
#include <optional>

#include <hetero/default_device.hpp>
#include <hetero/device.hpp>
#include <hetero/dtype.hpp>

namespace hetero {

/// Where and of what type a factory creates a tensor. Implicitly constructible from a
/// Device or a DType, and composable: TensorOptions().device(d).dtype(DType::float64).
/// Unset fields take defaults: the scoped default device (default_device()) and the
/// factory's own default dtype (float32 for floating factories, int64 for tensor({1,2})).
class TensorOptions {
 public:
  TensorOptions() = default;
  /// Options with only a device, or only a dtype (implicit, as libtorch's, so that
  /// ones({2}, "cuda:0") and ones({2}, DType::int64) read as they say).
  /// @{
  TensorOptions(const Device& d) : device_(d) {}        // NOLINT: implicit, as in libtorch
  TensorOptions(const char* d) : device_(Device(d)) {}  // NOLINT
  TensorOptions(DType t) : dtype_(t) {}                 // NOLINT
  /// @}

  /// A copy with the device set.
  TensorOptions device(const Device& d) const {
    TensorOptions o = *this;
    o.device_ = d;
    return o;
  }
  /// A copy with the dtype set.
  TensorOptions dtype(DType t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    return o;
  }

  /// A copy asking for page-locked (pinned) host memory, as at::TensorOptions::pinned_memory
  /// and torch.empty(..., pin_memory=True): the factory's result is a cpu tensor whose
  /// copies to and from a device can be asynchronous (see Tensor::pin_memory()). The
  /// factory then throws InvalidDeviceError unless the device is cpu:0 (the host), and
  /// DeviceUnavailableError when no loaded backend provides pinned memory. Operations on
  /// a pinned tensor give ordinary cpu tensors, as in torch.
  TensorOptions pinned_memory(bool pinned) const {
    TensorOptions o = *this;
    o.pinned_memory_ = pinned;
    return o;
  }

  /// The device, or default_device() when unset.
  Device device() const { return device_ ? *device_ : default_device(); }
  /// The dtype, or `fallback` when unset.
  DType dtype_or(DType fallback) const { return dtype_ ? *dtype_ : fallback; }
  /// Whether a dtype was set.
  bool has_dtype() const noexcept { return dtype_.has_value(); }
  /// Whether pinned host memory was asked for (default false).
  bool pinned_memory() const noexcept { return pinned_memory_; }

 private:
  std::optional<Device> device_;
  std::optional<DType> dtype_;
  bool pinned_memory_ = false;
};

}  // namespace hetero
