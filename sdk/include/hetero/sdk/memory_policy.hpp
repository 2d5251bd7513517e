// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file memory_policy.hpp
/// Note [Out-of-memory policy]: what every backend does when its device refuses an
/// allocation, as PyTorch's caching allocators do: give the pool's cached blocks back to the
/// device, let the device finish what releases them, and try exactly once more; a second
/// refusal is an OutOfMemoryError naming the device, the request and the device's figures,
/// and leaves the device usable. One message for every backend (out_of_memory_error).
#include <cstddef>
#include <string>

#include <hetero/error.hpp>

namespace hetero {

/// Figures an out-of-memory error reports. Sizes in bytes; 0 where the device does not say.
struct MemoryFigures {
  std::string device;         ///< "cuda:0", "cpu:1", "opencl:0 (pthread-...)", "pinned host memory"
  std::size_t requested = 0;  ///< the request, as the caller made it
  std::size_t free = 0;       ///< free on the device now
  std::size_t total = 0;      ///< the device's memory
  std::size_t reserved = 0;   ///< held by hetero's pool (in use plus cached)
  std::string what = "memory";  ///< what was allocated ("memory", "GEMM scratch", ...)
  /// A limit of the process that may have refused the request before the device ran out
  /// (the cpu plugin's RLIMIT_AS, RLIMIT_DATA); "" when none applies.
  std::string limits = std::string();
};

/// The OutOfMemoryError of the policy: "<device>: out of memory: cannot allocate <requested>
/// bytes of <what>; <free> bytes free of <total> total, <reserved> bytes reserved by hetero
/// (the cache was emptied and the allocation retried once)", with "; <limits>" before the
/// parenthesis when `limits` is set.
inline OutOfMemoryError out_of_memory_error(const MemoryFigures& f) {
  return OutOfMemoryError(f.device + ": out of memory: cannot allocate " +
                          std::to_string(f.requested) + " bytes of " + f.what + "; " +
                          std::to_string(f.free) + " bytes free of " + std::to_string(f.total) +
                          " total, " + std::to_string(f.reserved) + " bytes reserved by hetero" +
                          (f.limits.empty() ? std::string() : "; " + f.limits) +
                          " (the cache was emptied and the allocation retried once)");
}

/// The policy's control flow: `try_allocate()` (returns something testable as bool, false
/// when the device refused); when refused, `release_cached()` (empty the pool and wait for
/// the device to free it), then `try_allocate()` once more, whose result is returned as it
/// is (the caller throws out_of_memory_error when it is still false). Exceptions of either
/// call propagate.
template <class TryAllocate, class ReleaseCached>
auto allocate_with_retry(TryAllocate&& try_allocate, ReleaseCached&& release_cached) {
  auto result = try_allocate();
  if (result) return result;
  release_cached();
  return try_allocate();
}

}  // namespace hetero
