#pragma once
/// @file tensor_options.hpp
/// hetero::TensorOptions — device and dtype of a new tensor, as torch::TensorOptions.
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
  TensorOptions(const Device& d) : device_(d) {}        // NOLINT: implicit, as in libtorch
  TensorOptions(const char* d) : device_(Device(d)) {}  // NOLINT
  TensorOptions(DType t) : dtype_(t) {}                 // NOLINT

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

  /// The device, or default_device() when unset.
  Device device() const { return device_ ? *device_ : default_device(); }
  /// The dtype, or `fallback` when unset.
  DType dtype_or(DType fallback) const { return dtype_ ? *dtype_ : fallback; }
  bool has_dtype() const noexcept { return dtype_.has_value(); }

 private:
  std::optional<Device> device_;
  std::optional<DType> dtype_;
};

}  // namespace hetero
