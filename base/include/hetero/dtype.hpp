// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file dtype.hpp
/// Element types of tensors and buffers. Header-only value type shared by core and SDK.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>

namespace hetero {

/// Element type. Values are part of the plugin ABI: append, never renumber.
enum class DType : std::uint8_t {
  float32 = 0,   ///< IEEE binary32, the default for floating factories (as torch.float32)
  float64 = 1,   ///< IEEE binary64
  int32 = 2,     ///< two's complement 32-bit
  int64 = 3,     ///< two's complement 64-bit, the dtype of tensor({1, 2, 3})
  bool_ = 4,     ///< one byte, 0 or 1
  float16 = 5,   ///< IEEE binary16 (half): 5 exponent, 10 mantissa bits; max 65504
  bfloat16 = 6,  ///< brain float: the upper 16 bits of a binary32 (8 exponent, 7 mantissa bits)
  uint8 = 7,     ///< unsigned 8-bit, 0..255 (as torch.uint8: image bytes); plugin interface 3.2
  int8 = 8,      ///< two's complement 8-bit, -128..127 (as torch.int8); plugin interface 3.2
};

/// Number of DType values (the enumerators are 0 .. kDTypeCount - 1).
inline constexpr int kDTypeCount = 9;

/// Size of one element in bytes.
constexpr std::size_t element_size(DType t) noexcept {
  switch (t) {
    case DType::float32:
      return 4;
    case DType::float64:
      return 8;
    case DType::int32:
      return 4;
    case DType::int64:
      return 8;
    case DType::bool_:
      return 1;
    case DType::float16:
      return 2;
    case DType::bfloat16:
      return 2;
    case DType::uint8:
    case DType::int8:
      return 1;
  }
  return 0;
}

/// True for float16, bfloat16, float32 and float64.
constexpr bool is_floating_point(DType t) noexcept {
  return t == DType::float32 || t == DType::float64 || t == DType::float16 || t == DType::bfloat16;
}

/// True for int8, uint8, int32 and int64 (not bool), as torch's is_integral(includeBool=false).
constexpr bool is_integral(DType t) noexcept {
  return t == DType::int32 || t == DType::int64 || t == DType::uint8 || t == DType::int8;
}

/// True for the 16-bit floating dtypes, which kernels compute in float32 (as torch on CPU).
constexpr bool is_half(DType t) noexcept { return t == DType::float16 || t == DType::bfloat16; }

/// The name as PyTorch spells it without the "torch." prefix: "float32", "int64", "bool".
constexpr std::string_view dtype_name(DType t) noexcept {
  switch (t) {
    case DType::float32:
      return "float32";
    case DType::float64:
      return "float64";
    case DType::int32:
      return "int32";
    case DType::int64:
      return "int64";
    case DType::bool_:
      return "bool";
    case DType::float16:
      return "float16";
    case DType::bfloat16:
      return "bfloat16";
    case DType::uint8:
      return "uint8";
    case DType::int8:
      return "int8";
  }
  return "unknown";
}

/// Prints dtype_name(t) ("float32", ...).
inline std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

/// The DType of a C++ element type T, for dispatch and from_vector<T>:
/// float -> float32, double -> float64, int32_t -> int32, int64_t -> int64, bool -> bool_,
/// uint8_t -> uint8, int8_t -> int8 (and, with <hetero/sdk/half.hpp>, the SDK's storage
/// types Half -> float16, BFloat16 -> bfloat16). Any other T
/// (long long, short, unsigned, char, ...) does not compile: reading it as another type's
/// bytes would be wrong.
template <class T>
struct DTypeOf {
  static_assert(
      sizeof(T) == 0,
      "hetero::dtype_of<T>: T is not an element type hetero supports (float, double, std::int32_t, "
      "std::int64_t, bool, std::uint8_t, std::int8_t, hetero::Half, hetero::BFloat16); convert the "
      "values "
      "first");
};
/// float is float32.
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::float32;  ///< the DType
};
/// double is float64.
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::float64;  ///< the DType
};
/// std::int32_t is int32.
template <>
struct DTypeOf<std::int32_t> {
  static constexpr DType value = DType::int32;  ///< the DType
};
/// std::int64_t is int64.
template <>
struct DTypeOf<std::int64_t> {
  static constexpr DType value = DType::int64;  ///< the DType
};
/// bool is bool_.
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::bool_;  ///< the DType
};
/// std::uint8_t is uint8.
template <>
struct DTypeOf<std::uint8_t> {
  static constexpr DType value = DType::uint8;  ///< the DType
};
/// std::int8_t is int8.
template <>
struct DTypeOf<std::int8_t> {
  static constexpr DType value = DType::int8;  ///< the DType
};

/// dtype_of<float> == DType::float32 (see DTypeOf).
template <class T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

}  // namespace hetero
