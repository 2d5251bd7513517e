// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file counter_rng.hpp
/// The counter-based random stream that Backend::random() defines: value number `c` of
/// the stream for `seed` is a pure function of (seed, c), so any backend, any thread
/// count and any launch shape give the same numbers (the idea of Philox, Salmon et al.,
/// SC'11; the mixing function here is the SplitMix64 finaliser, Steele, Lea & Flood,
/// OOPSLA'14, applied twice). Usable from host code and from CUDA device code.
///
/// Element i of a random() call with `offset` takes:
/// - uniform: counter offset + i, mapped to [0, 1) with the type's full mantissa;
/// - normal:  counters offset + 2i and offset + 2i + 1, Box-Muller (cosine branch).
#include <cmath>
#include <cstdint>

#include <hetero/sdk/host_device.hpp>

namespace hetero::rng {

/// 64 random bits for counter `counter` of the stream `seed`.
HETERO_HOST_DEVICE inline std::uint64_t mix(std::uint64_t seed, std::uint64_t counter) {
  std::uint64_t z =
      seed * 0x9E3779B97F4A7C15ULL + counter * 0xBF58476D1CE4E5B9ULL + 0x94D049BB133111EBULL;
  for (int round = 0; round < 2; ++round) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
  }
  return z;
}

/// float in [0, 1) from the top 24 bits.
HETERO_HOST_DEVICE inline float uniform_float(std::uint64_t bits) {
  return static_cast<float>(bits >> 40) * 0x1.0p-24f;
}

/// double in [0, 1) from the top 53 bits.
HETERO_HOST_DEVICE inline double uniform_double(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

/// Element `i` of a uniform call (seed, offset), as T (float or double).
template <class T>
HETERO_HOST_DEVICE inline T uniform_at(std::uint64_t seed, std::uint64_t offset, std::uint64_t i) {
  if constexpr (sizeof(T) == sizeof(float))
    return uniform_float(mix(seed, offset + i));
  else
    return uniform_double(mix(seed, offset + i));
}

/// Element `i` of a standard-normal call (seed, offset), computed in double.
HETERO_HOST_DEVICE inline double normal_at(std::uint64_t seed, std::uint64_t offset,
                                           std::uint64_t i) {
  const double u1 = 1.0 - uniform_double(mix(seed, offset + 2 * i));  // (0, 1]
  const double u2 = uniform_double(mix(seed, offset + 2 * i + 1));
  constexpr double two_pi = 6.283185307179586476925286766559;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
}

}  // namespace hetero::rng
