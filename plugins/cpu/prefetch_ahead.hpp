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
// 1.5 ms. A column reduction asks for the next row's columns as it reads a row (sum(0) of
// 4096 x 4096 float32: 3.2 -> 1.7 ms).
// An element-wise kernel's stores are the other half: each store to a line not in the cache
// first reads it for ownership, and that read only starts when the store reaches it. Asking
// for the output's line ahead with the intent to write (x86's prefetchw) took the 64 MiB add,
// multiply and relu from 0.88-0.92 of libtorch's to 1.01-1.05.
// Rows of short runs have their own rule (Note [Prefetching short rows], vector_reduce.cpp).
#include <cstdint>

#include <hwy/base.h>
#include <hwy/cache_control.h>

namespace hetero::cpu::vec {

/// The prefetch distance of a dense scan, bytes (Note [Prefetching a dense scan]).
inline constexpr std::int64_t kScanPrefetchBytes = 4096;

/// What a prefetched line is for.
enum class PrefetchFor : std::uint8_t { read, write };

/// Prefetches, into L1, each 64-byte line `distance` bytes ahead of a forward scan of the
/// `size` bytes from `base`: `through(k)` asks for every line up to base + k + distance not
/// asked for yet, and none past the scan's last byte (another thread may be writing the next
/// run). PrefetchFor::write asks for the line in the state a store needs (x86's prefetchw,
/// which CPUs before it run as a no-op; a read prefetch elsewhere). The addresses are
/// integers, never pointers formed past the array. Not thread-safe: one per scanning thread.
template <PrefetchFor For = PrefetchFor::read>
class PrefetchAhead {
 public:
  PrefetchAhead(const void* base, std::int64_t size, std::int64_t distance = kScanPrefetchBytes)
      : ahead_(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(distance)),
        next_(ahead_),
        last_(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(size)) {}

  /// Asks for the lines up to `bytes` (from base) plus the distance.
  HWY_INLINE void through(std::int64_t bytes) {
    const std::uintptr_t end = ahead_ + static_cast<std::uintptr_t>(bytes);
    for (; next_ < end && next_ < last_; next_ += 64) ask(next_);
  }

 private:
  static HWY_INLINE void ask(std::uintptr_t address) {
    if constexpr (For == PrefetchFor::write) {
#if HWY_ARCH_X86
      // GCC emits prefetchw for __builtin_prefetch(p, 1) only where the target names PRFCHW,
      // which Highway's targets do not.
      asm volatile("prefetchw (%0)" : : "r"(address));
#else
      __builtin_prefetch(reinterpret_cast<const char*>(address), 1, 3);
#endif
    } else {
      hwy::Prefetch(reinterpret_cast<const char*>(address));
    }
  }

  std::uintptr_t ahead_;
  std::uintptr_t next_;  // the next address to ask for
  std::uintptr_t last_;  // one past the scan's last byte
};

/// Read prefetches of a scan's input (Note [Prefetching a dense scan]).
using PrefetchRead = PrefetchAhead<PrefetchFor::read>;
/// Write prefetches of a scan's output.
using PrefetchWrite = PrefetchAhead<PrefetchFor::write>;

}  // namespace hetero::cpu::vec
