// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file counter_rng.hpp
/// The counter-based random stream that Backend::random() defines: value number `c` of
/// the stream for `seed` is a pure function of (seed, c), so any backend, any thread
/// count and any launch shape give the same numbers. The function is Philox4x32-10 (Salmon,
/// Moraes, Dror and Shaw, SC'11), from Random123 (`librandom123-dev`, header-only; the
/// generator of cuRAND's and PyTorch's CUDA RNG): the seed is the 64-bit key and the counter
/// the low half of the 128-bit counter, so streams of different seeds are independent (the
/// key schedule), not shifted copies of one another. Usable from host code and from CUDA
/// device code; the OpenCL backend transcribes it (cl/random.cl) and conformance
/// `RandomIsTheSdkStream` checks every backend against this header bit for bit.
///
/// Element i of a random() call with `offset` takes:
/// - uniform: counter offset + i, mapped to [0, 1) with the type's full mantissa;
/// - normal:  counters offset + 2i and offset + 2i + 1, Box-Muller (cosine branch).
#include <Random123/philox.h>

#include <cmath>
#include <cstdint>

#include <hetero/sdk/host_device.hpp>

namespace hetero::rng {

/// 64 random bits for counter `counter` of the stream `seed`: words 0 (low) and 1 (high) of
/// philox4x32_10(counter = {lo(counter), hi(counter), 0, 0}, key = {lo(seed), hi(seed)}).
HETERO_HOST_DEVICE inline std::uint64_t mix(std::uint64_t seed, std::uint64_t counter) {
  const philox4x32_ctr_t c = {
      {static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32), 0u, 0u}};
  const philox4x32_key_t k = {
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  const philox4x32_ctr_t r = philox4x32_R(10, c, k);
  return (static_cast<std::uint64_t>(r.v[1]) << 32) | r.v[0];
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
