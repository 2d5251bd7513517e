#pragma once
/// @file element_conversion.hpp
/// The element conversion every backend's cast/copy_strided applies (Backend::cast), in
/// one place so that backends agree: anything -> bool is `x != 0`; float -> integer
/// truncates towards zero and saturates at the target's range, NaN -> 0 (C++ leaves
/// out-of-range conversion undefined; torch's CPU result is platform-dependent there);
/// everything else is static_cast. bool is stored as uint8_t. Host and CUDA device code.
#include <cstdint>
#include <limits>
#include <type_traits>

#include <hetero/sdk/host_device.hpp>
#include <hetero/sdk/kernel_args.hpp>

namespace hetero {

/// One element of S converted to D by the rule above.
template <class D, class S>
HETERO_HOST_DEVICE inline D convert_element(S s) {
  if constexpr (std::is_same_v<D, std::uint8_t>) {
    return static_cast<D>(s != S(0));
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    if (s != s) return D(0);
    if (s <= static_cast<S>(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
    if (s >= static_cast<S>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(s);
  } else {
    return static_cast<D>(s);
  }
}

/// The value Backend::fill stores, as T: Scalar::f for floating T, Scalar::i otherwise
/// (bool: i != 0).
template <class T>
HETERO_HOST_DEVICE inline T scalar_as(const Scalar& value) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(value.f);
  else if constexpr (std::is_same_v<T, std::uint8_t>) return value.i != 0 ? 1 : 0;
  else return static_cast<T>(value.i);
}

}  // namespace hetero
