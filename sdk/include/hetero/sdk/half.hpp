// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file half.hpp
/// Storage types of DType::float16 and DType::bfloat16 for backend kernels (host code,
/// and CUDA device code through HETERO_HOST_DEVICE). They hold the 16 raw bits; they
/// convert implicitly to float (exactly) and from float (rounding to nearest even, as
/// torch and the IEEE default; overflow gives +-inf, NaN stays NaN), so kernels compute
/// in float and store the rounded result, as PyTorch's c10::Half / c10::BFloat16.
/// Host conversion of binary16 is libfp16's (Debian libfp16-dev, the library PyTorch
/// uses); device code uses cuda_fp16.h. bfloat16 is the upper half of a binary32.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <hetero/dtype.hpp>
#include <hetero/sdk/host_device.hpp>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif
#include <fp16.h>

namespace hetero {

/// IEEE binary16 storage (DType::float16). 2 bytes, trivially copyable.
struct Half {
  std::uint16_t bits = 0;  ///< the binary16 encoding (0: +0)
  /// +0.
  Half() = default;
  /// `f` rounded to the nearest binary16, ties to even (implicit, as c10::Half).
  HETERO_HOST_DEVICE Half(float f) : bits(from_float(f)) {}  // NOLINT: implicit, as c10::Half
  /// The value as a float (exact).
  HETERO_HOST_DEVICE operator float() const { return to_float(bits); }  // NOLINT

  /// The binary16 encoding of `f`, rounded to nearest even (FP16's / CUDA's __float2half_rn).
  HETERO_HOST_DEVICE static std::uint16_t from_float(float f) {
#if defined(__CUDA_ARCH__)
    return __half_as_ushort(__float2half_rn(f));
#else
    return fp16_ieee_from_fp32_value(f);
#endif
  }
  /// The float value of binary16 encoding `h` (exact).
  HETERO_HOST_DEVICE static float to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
    return __half2float(__ushort_as_half(h));
#else
    return fp16_ieee_to_fp32_value(h);
#endif
  }
};

/// bfloat16 storage (DType::bfloat16): the upper 16 bits of a binary32. 2 bytes.
struct BFloat16 {
  std::uint16_t bits = 0;  ///< the upper 16 bits of the binary32 encoding (0: +0)
  /// +0.
  BFloat16() = default;
  /// `f` rounded as from_float() does (implicit, as c10::BFloat16).
  HETERO_HOST_DEVICE BFloat16(float f)
      : bits(from_float(f)) {}  // NOLINT: implicit, as c10::BFloat16
  /// The value as a float (exact).
  HETERO_HOST_DEVICE operator float() const { return to_float(bits); }  // NOLINT

  /// Round to nearest even on the upper 16 bits; NaN becomes the quiet NaN 0x7FC0.
  HETERO_HOST_DEVICE static std::uint16_t from_float(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
    u += 0x7FFFu + ((u >> 16) & 1u);
    return static_cast<std::uint16_t>(u >> 16);
  }
  /// The float value of bfloat16 bits `b` (exact).
  HETERO_HOST_DEVICE static float to_float(std::uint16_t b) {
    const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

/// `d` rounded to float by round-to-odd (truncate, then set the last bit if inexact).
/// Rounding that float to nearest even in binary16 or bfloat16 then gives the correctly
/// rounded result of `d` (float has more than 2 * 11 + 2 significand bits), avoiding the
/// double rounding of double -> float -> 16 bits.
HETERO_HOST_DEVICE inline float float_round_to_odd(double d) {
  float f = static_cast<float>(d);
  if (!(static_cast<double>(f) != d) || f != f) return f;  // exact, or NaN
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  const double back = static_cast<double>(f);
  if ((back > d) == (d > 0)) --u;  // rounded away from zero: step back towards it
  u |= 1u;
  std::memcpy(&f, &u, 4);
  return f;
}

static_assert(sizeof(Half) == 2 && std::is_trivially_copyable_v<Half>);
static_assert(sizeof(BFloat16) == 2 && std::is_trivially_copyable_v<BFloat16>);

/// True for the storage types of floating dtypes: float, double, Half, BFloat16.
template <class T>
inline constexpr bool is_floating_storage_v =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// The type kernels compute a storage type in: float for Half/BFloat16, else T.
template <class T>
using compute_type_t =
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

/// dtype_of<Half> == DType::float16, dtype_of<BFloat16> == DType::bfloat16 (DTypeOf,
/// <hetero/dtype.hpp>): the base layer names no SDK type.
template <>
struct DTypeOf<Half> {
  static constexpr DType value = DType::float16;  ///< the DType
};
/// BFloat16 is bfloat16.
template <>
struct DTypeOf<BFloat16> {
  static constexpr DType value = DType::bfloat16;  ///< the DType
};

}  // namespace hetero
