// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file element_conversion.hpp
/// The element conversion every backend's cast/copy_strided applies (Backend::cast), in
/// one place so that backends agree: anything -> bool is `x != 0`; float -> integer
/// truncates towards zero and saturates at the target's range, NaN -> 0 (C++ leaves
/// out-of-range conversion undefined; torch's CPU result is platform-dependent there);
/// to float16/bfloat16 rounds to nearest even from the exact value (overflow gives inf);
/// integer -> integer wraps modulo 2^bits (int64 300 -> uint8 44, as torch); everything else is
/// static_cast. bool is stored as C++ bool (one byte, 0 or 1). Host and CUDA device code.
#include <cstdint>
#include <limits>
#include <type_traits>

#include <hetero/sdk/half.hpp>
#include <hetero/sdk/host_device.hpp>
#include <hetero/sdk/kernel_args.hpp>

namespace hetero {

/// One element of S converted to D by the rule above.
template <class D, class S>
HETERO_HOST_DEVICE inline D convert_element(S s) {
  if constexpr (std::is_same_v<D, bool>) {
    return s != S(0);
  } else if constexpr (is_floating_storage_v<S> && std::is_integral_v<D>) {
    using C = std::conditional_t<std::is_same_v<S, double>, double, float>;
    const C x = static_cast<C>(s);
    if (x != x) return D(0);
    if (x <= static_cast<C>(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
    if (x >= static_cast<C>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(x);
  } else if constexpr (std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>) {
    // Round to nearest even from the exact value: float holds every source value but
    // double and int64, which go through float_round_to_odd (no double rounding).
    if constexpr (!std::is_same_v<S, float> && !std::is_same_v<S, Half> &&
                  !std::is_same_v<S, BFloat16>)
      return D(float_round_to_odd(static_cast<double>(s)));
    else
      return D(static_cast<float>(s));
  } else if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>) {
    return static_cast<D>(static_cast<float>(s));
  } else {
    return static_cast<D>(s);
  }
}

/// The value Backend::fill stores, as T: Scalar::f for floating T, Scalar::i otherwise
/// (bool: i != 0).
template <class T>
HETERO_HOST_DEVICE inline T scalar_as(const Scalar& value) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return T(static_cast<float>(value.f));
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(value.f);
  else if constexpr (std::is_same_v<T, bool>)
    return value.i != 0;
  else
    return static_cast<T>(value.i);
}

}  // namespace hetero
