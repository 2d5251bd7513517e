// SPDX-License-Identifier: Apache-2.0
#pragma once
// Note [Prefetching a dense scan]: a kernel that reads a long dense run and does several
// instructions per vector (a float32 sum in double lanes: a load, a conversion and an add per
// half vector; a max with its NaN check) fills the out-of-order window with arithmetic and
// keeps fewer cache lines in flight than a plain float32 add of the same bytes. Where the
// data sits in a large L3 (260 MiB on an AVX-512 Xeon, which holds bench_large_ops' 64 MiB)
// that, not the arithmetic, set the speed: a 2-thread micro-benchmark of the double sum of
// 64 MiB of float32 took 3.0 ms, the float32 sum 1.6 ms; asking for the line 512 bytes ahead
// gave 2.1 ms, 2048 bytes 1.65 ms, 4096 bytes 1.6 ms. The max with its check went from 1.9 to
// 1.5 ms. Rows of short runs have their own rule (Note [Prefetching short rows],
// vector_reduce.cpp).
#include <cstdint>

#include <hwy/base.h>
#include <hwy/cache_control.h>

namespace hetero::cpu::vec {

/// The prefetch distance of a dense scan, bytes (Note [Prefetching a dense scan]).
inline constexpr std::int64_t kScanPrefetchBytes = 4096;

/// Prefetches, into L1, each 64-byte line `distance` bytes ahead of a forward scan from
/// `base`: `through(k)` asks for every line up to base + k + distance not asked for yet.
/// The addresses are integers, never pointers formed past the array, and a prefetch does not
/// fault, so lines past the end are harmless. Not thread-safe: one per scanning thread.
class PrefetchAhead {
 public:
  PrefetchAhead(const void* base, std::int64_t distance = kScanPrefetchBytes)
      : ahead_(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(distance)),
        next_(ahead_) {}

  /// Asks for the lines up to `bytes` (from base) plus the distance.
  HWY_INLINE void through(std::int64_t bytes) {
    const std::uintptr_t end = ahead_ + static_cast<std::uintptr_t>(bytes);
    for (; next_ < end; next_ += 64) hwy::Prefetch(reinterpret_cast<const char*>(next_));
  }

 private:
  std::uintptr_t ahead_;
  std::uintptr_t next_;  // the next address to ask for
};

}  // namespace hetero::cpu::vec
