// SPDX-License-Identifier: Apache-2.0
// Transposed copies (vector_transpose.hpp), compiled once per target as vector_elementwise.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "vector_transpose.hpp"

// clang-format off: the order of these includes is Highway's protocol.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vector_transpose.cpp"
#include <hwy/foreach_target.h>
#include <hwy/highway.h>
// clang-format on
#include <hwy/cache_control.h>

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// dst[i * ds + j] = src[j * ss + i], blocks of lanes x lanes elements moved through
// registers (loads and stores of whole rows of a block, the interleaving in between), the
// edges element by element. 16-bit elements in 128-bit vectors (every x86 target), every
// size in 256-bit vectors on AVX2 and in 512-bit ones on AVX-512 (AVX3).

#if HWY_TARGET != HWY_SCALAR
// r[k] (k < 8): 8 rows of 16-bit lanes, each 128-bit block of them (8 lanes) transposed in
// place with the same block of the other rows: three rounds of interleaving pairs, of 16-,
// 32- and 64-bit units (Highway's interleaves work within 128-bit blocks).
template <class D, class V>
HWY_INLINE void transpose_8x8_u16(D d16, V* r) {
  const hn::Repartition<std::uint32_t, decltype(d16)> d32;
  const hn::Repartition<std::uint64_t, decltype(d16)> d64;
  auto lo = [d16](auto d, V a, V b) {
    return hn::BitCast(d16, hn::InterleaveLower(d, hn::BitCast(d, a), hn::BitCast(d, b)));
  };
  auto hi = [d16](auto d, V a, V b) {
    return hn::BitCast(d16, hn::InterleaveUpper(d, hn::BitCast(d, a), hn::BitCast(d, b)));
  };
  V a[8], b[8];
  for (int k = 0; k < 8; k += 2) {
    a[k] = lo(d16, r[k], r[k + 1]);
    a[k + 1] = hi(d16, r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4)
    for (int m = 0; m < 2; ++m) {
      b[k + 2 * m] = lo(d32, a[k + m], a[k + m + 2]);
      b[k + 2 * m + 1] = hi(d32, a[k + m], a[k + m + 2]);
    }
  for (int k = 0; k < 4; ++k) {
    r[2 * k] = lo(d64, b[k], b[k + 4]);
    r[2 * k + 1] = hi(d64, b[k], b[k + 4]);
  }
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// 16 rows of 16 16-bit lanes: the 8 x 8 transposes of each half of the rows within their
// 128-bit blocks, then row c takes the lower blocks of rows c and c + 8, row c + 8 the upper.
template <class V>
HWY_INLINE void transpose_16x16_u16(V* r) {
  const hn::FixedTag<std::uint16_t, 16> d;
  transpose_8x8_u16(d, r);
  transpose_8x8_u16(d, r + 8);
  V out[16];
  for (int c = 0; c < 8; ++c) {
    out[c] = hn::ConcatLowerLower(d, r[c + 8], r[c]);
    out[c + 8] = hn::ConcatUpperUpper(d, r[c + 8], r[c]);
  }
  for (int c = 0; c < 16; ++c) r[c] = out[c];
}

// 8 rows of 8 32-bit lanes: interleave 32-bit, then 64-bit units within each 128-bit
// half, then swap halves.
template <class V>
HWY_INLINE void transpose_8x8_u32(V* r) {
  const hn::FixedTag<std::uint32_t, 8> d32;
  const hn::Repartition<std::uint64_t, decltype(d32)> d64;
  V t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = hn::InterleaveLower(d32, r[k], r[k + 1]);
    t[k + 1] = hn::InterleaveUpper(d32, r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4)
    for (int m = 0; m < 2; ++m) {
      const auto x = hn::BitCast(d64, t[k + m]), y = hn::BitCast(d64, t[k + m + 2]);
      u[k + 2 * m] = hn::BitCast(d32, hn::InterleaveLower(d64, x, y));
      u[k + 2 * m + 1] = hn::BitCast(d32, hn::InterleaveUpper(d64, x, y));
    }
  for (int k = 0; k < 4; ++k) {
    r[k] = hn::ConcatLowerLower(d32, u[k + 4], u[k]);
    r[k + 4] = hn::ConcatUpperUpper(d32, u[k + 4], u[k]);
  }
}

#if HWY_TARGET <= HWY_AVX3
// 512-bit rows whose 128-bit blocks are already transposed within groups of G rows (r[g *
// G + c], g < 4): row g * G + c holds, in block q, what row q * G + c needs in block g.
// Exchanges the blocks of each 4 rows {c, G + c, 2G + c, 3G + c}: two rounds, adjacent
// blocks (SwapAdjacentBlocks + OddEvenBlocks) then 256-bit halves (Concat*).
template <int G, class D>
HWY_INLINE void exchange_blocks(D d, hn::Vec<D>* r) {
  for (int c = 0; c < G; ++c) {
    hn::Vec<D>& r0 = r[c];
    hn::Vec<D>& r1 = r[G + c];
    hn::Vec<D>& r2 = r[2 * G + c];
    hn::Vec<D>& r3 = r[3 * G + c];
    const auto t0 = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(r1), r0);  // a0 b0 a2 b2
    const auto t1 = hn::OddEvenBlocks(r1, hn::SwapAdjacentBlocks(r0));  // a1 b1 a3 b3
    const auto t2 = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(r3), r2);  // c0 d0 c2 d2
    const auto t3 = hn::OddEvenBlocks(r3, hn::SwapAdjacentBlocks(r2));  // c1 d1 c3 d3
    r0 = hn::ConcatLowerLower(d, t2, t0);                               // a0 b0 c0 d0
    r1 = hn::ConcatLowerLower(d, t3, t1);                               // a1 b1 c1 d1
    r2 = hn::ConcatUpperUpper(d, t2, t0);                               // a2 b2 c2 d2
    r3 = hn::ConcatUpperUpper(d, t3, t1);                               // a3 b3 c3 d3
  }
}

// 32 rows of 32 16-bit lanes: 8 x 8 within the blocks of each 8 rows, then the blocks.
template <class V>
HWY_INLINE void transpose_32x32_u16(V* r) {
  const hn::FixedTag<std::uint16_t, 32> d;
  for (int g = 0; g < 4; ++g) transpose_8x8_u16(d, r + 8 * g);
  exchange_blocks<8>(d, r);
}

// 16 rows of 16 32-bit lanes: 4 x 4 within the blocks of each 4 rows (32-bit, then 64-bit
// interleaves), then the blocks.
template <class V>
HWY_INLINE void transpose_16x16_u32(V* r) {
  const hn::FixedTag<std::uint32_t, 16> d32;
  const hn::Repartition<std::uint64_t, decltype(d32)> d64;
  for (int g = 0; g < 16; g += 4) {
    const V t0 = hn::InterleaveLower(d32, r[g], r[g + 1]);
    const V t1 = hn::InterleaveUpper(d32, r[g], r[g + 1]);
    const V t2 = hn::InterleaveLower(d32, r[g + 2], r[g + 3]);
    const V t3 = hn::InterleaveUpper(d32, r[g + 2], r[g + 3]);
    auto lo = [&](V a, V b) {
      return hn::BitCast(d32, hn::InterleaveLower(d64, hn::BitCast(d64, a), hn::BitCast(d64, b)));
    };
    auto hi = [&](V a, V b) {
      return hn::BitCast(d32, hn::InterleaveUpper(d64, hn::BitCast(d64, a), hn::BitCast(d64, b)));
    };
    r[g] = lo(t0, t2);
    r[g + 1] = hi(t0, t2);
    r[g + 2] = lo(t1, t3);
    r[g + 3] = hi(t1, t3);
  }
  exchange_blocks<4>(d32, r);
}

// 8 rows of 8 64-bit lanes: 2 x 2 within the blocks of each 2 rows, then the blocks.
template <class V>
HWY_INLINE void transpose_8x8_u64(V* r) {
  const hn::FixedTag<std::uint64_t, 8> d64;
  for (int g = 0; g < 8; g += 2) {
    const V t0 = hn::InterleaveLower(d64, r[g], r[g + 1]);
    r[g + 1] = hn::InterleaveUpper(d64, r[g], r[g + 1]);
    r[g] = t0;
  }
  exchange_blocks<2>(d64, r);
}
#endif

// 4 rows of 4 64-bit lanes.
template <class V>
HWY_INLINE void transpose_4x4_u64(V* r) {
  const hn::FixedTag<std::uint64_t, 4> d64;
  const V t0 = hn::InterleaveLower(d64, r[0], r[1]), t1 = hn::InterleaveUpper(d64, r[0], r[1]);
  const V t2 = hn::InterleaveLower(d64, r[2], r[3]), t3 = hn::InterleaveUpper(d64, r[2], r[3]);
  r[0] = hn::ConcatLowerLower(d64, t2, t0);
  r[1] = hn::ConcatLowerLower(d64, t3, t1);
  r[2] = hn::ConcatUpperUpper(d64, t2, t0);
  r[3] = hn::ConcatUpperUpper(d64, t3, t1);
}
#endif

// The blocks of a rows x cols transpose through `block` (which transposes L rows of L
// lanes in place), the edges element by element.
template <class D, class F>
void transpose_blocks(D d, F block, const hn::TFromD<D>* src, std::int64_t ss, hn::TFromD<D>* dst,
                      std::int64_t ds, std::int64_t rows, std::int64_t cols) {
  constexpr std::int64_t L = static_cast<std::int64_t>(hn::MaxLanes(D()));
  const std::int64_t rows_l = rows / L * L, cols_l = cols / L * L;
  hn::Vec<D> r[L];
  for (std::int64_t i = 0; i < rows_l; i += L) {
    for (std::int64_t j = 0; j < cols_l; j += L) {
      for (std::int64_t k = 0; k < L; ++k) r[k] = hn::LoadU(d, src + (j + k) * ss + i);
      block(r);
      for (std::int64_t k = 0; k < L; ++k) hn::StoreU(r[k], d, dst + (i + k) * ds + j);
    }
    for (std::int64_t k = i; k < i + L; ++k)
      for (std::int64_t j = cols_l; j < cols; ++j) dst[k * ds + j] = src[j * ss + k];
  }
  for (std::int64_t k = rows_l; k < rows; ++k)
    for (std::int64_t j = 0; j < cols; ++j) dst[k * ds + j] = src[j * ss + k];
}

// transpose_streaming (vector_transpose.hpp) on arrays of d's lanes: bands of kBand
// columns, each in tiles of kTileRows rows through an L1 buffer, written with
// non-temporal stores; the edges (a narrower last band, the rows after the last whole
// tile) through transpose_blocks. Measured at 4096x4096 float32 in a stand-alone program
// on the 2-core EPYC (Zen 3), 2 threads, against memcpy's 2.6 ms: bands of 32 columns
// 3.0 ms, 16 3.3, 64 3.4; without the prefetches 3.2; prefetching into L1 rather than L2
// 3.2; ordinary stores from the buffer 4.6, straight from the registers 5.3 (the
// destination's lines are read before they are written). float16 in bench_large_ops:
// bands of 64 columns and 128, tiles of 32 rows and 64, prefetches 256 and 512 bytes ahead
// all 1.1-1.3x memcpy's time, within the runs' noise.
//
// Note [Streaming bands]: the bands were 128 bytes wide (32 float32 columns, 64 float16),
// from the Zen 3 figures above. On a 2-core Zen 5 EPYC (AVX-512, 2026-12-01;
// bench_large_ops' hetero rows alone, medians of 3 runs of 3 repetitions, ms) wider bands
// won: float32 128 bytes 3.8-4.3, 256 3.1-3.9, 512 2.8-3.6, 1024 2.7-2.9; float16 128
// bytes 1.8-2.0, 256 1.2-1.6, 512 1.4-1.8, 1024 1.4. Both best near 128 columns, so a band
// is 128 columns, at most 512 bytes (float64: 64): each tile row written is 4-8 whole
// lines of non-temporal stores instead of 2, and the buffer (8-16 KiB) still fits every
// x86 L1. Tiles of 64 rows and prefetches 512 bytes ahead gained nothing on either.
template <class D, class F>
void stream_bands(D d, F block, const hn::TFromD<D>* src, std::int64_t ss, hn::TFromD<D>* dst,
                  std::int64_t ds, std::int64_t rows, std::int64_t cols) {
  using T = hn::TFromD<D>;
  constexpr std::int64_t L = static_cast<std::int64_t>(hn::MaxLanes(D()));
  constexpr std::int64_t kBand = streaming_band(sizeof(T));
  constexpr std::int64_t kTileRows = 32;
  constexpr std::int64_t kLine = 64 / sizeof(T), kAhead = 256 / sizeof(T);  // in elements
  static_assert(kBand % L == 0 && kTileRows % L == 0);
  constexpr std::size_t kVectorBytes = sizeof(T) * L;
  alignas(64) T buffer[kTileRows * kBand];  // 8-16 KiB: row i of the tile at i * kBand
  bool streamed = false;
  for (std::int64_t j0 = 0; j0 < cols; j0 += kBand) {
    const std::int64_t band = std::min(kBand, cols - j0);
    std::int64_t i0 = 0;
    for (; band == kBand && i0 + kTileRows <= rows; i0 += kTileRows) {
      for (std::int64_t j = 0; j < kBand; j += L) {
        const T* s = src + (j0 + j) * ss + i0;
        for (std::int64_t k = 0; k < L; ++k)  // the same rows two tiles on, into L2
          for (std::int64_t c = kAhead; c < kAhead + kTileRows && i0 + c < rows; c += kLine)
            __builtin_prefetch(s + k * ss + c, 0, 2);
        for (std::int64_t i = 0; i < kTileRows; i += L) {
          hn::Vec<D> r[L];
          for (std::int64_t k = 0; k < L; ++k) r[k] = hn::LoadU(d, s + k * ss + i);
          block(r);
          for (std::int64_t k = 0; k < L; ++k) hn::Store(r[k], d, buffer + (i + k) * kBand + j);
        }
      }
      T* o = dst + i0 * ds + j0;
      const bool aligned = reinterpret_cast<std::uintptr_t>(o) % kVectorBytes == 0 &&
                           (static_cast<std::size_t>(ds) * sizeof(T)) % kVectorBytes == 0;
      for (std::int64_t i = 0; i < kTileRows; ++i)
        for (std::int64_t j = 0; j < kBand; j += L) {
          const auto v = hn::Load(d, buffer + i * kBand + j);
          if (aligned)
            hn::Stream(v, d, o + i * ds + j);
          else
            hn::StoreU(v, d, o + i * ds + j);
        }
      streamed = streamed || aligned;
    }
    if (i0 < rows)
      transpose_blocks(d, block, src + j0 * ss + i0, ss, dst + i0 * ds + j0, ds, rows - i0, band);
  }
  if (streamed) hwy::FlushStream();  // the non-temporal stores done before returning
}

#endif  // HWY_TARGET != HWY_SCALAR

#if HWY_TARGET != HWY_SCALAR
// transpose_blocks or stream_bands on untyped arrays of d's lanes.
template <class D, class F>
bool transpose_as(bool stream, D d, F block, const void* src, std::int64_t ss, void* dst,
                  std::int64_t ds, std::int64_t rows, std::int64_t cols) {
  using T = hn::TFromD<D>;
  if (stream)
    stream_bands(d, block, static_cast<const T*>(src), ss, static_cast<T*>(dst), ds, rows, cols);
  else
    transpose_blocks(d, block, static_cast<const T*>(src), ss, static_cast<T*>(dst), ds, rows,
                     cols);
  return true;
}
#endif

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// transpose_as on vectors of kVectorBytes, with the block for 2-, 4- and 8-byte lanes.
template <std::size_t kVectorBytes, class B16, class B32, class B64>
bool transpose_sized(B16 block16, B32 block32, B64 block64, bool stream, std::size_t bytes,
                     const void* src, std::int64_t ss, void* dst, std::int64_t ds,
                     std::int64_t rows, std::int64_t cols) {
  if (bytes == 2)
    return transpose_as(stream, hn::FixedTag<std::uint16_t, kVectorBytes / 2>(), block16, src, ss,
                        dst, ds, rows, cols);
  if (bytes == 4)
    return transpose_as(stream, hn::FixedTag<std::uint32_t, kVectorBytes / 4>(), block32, src, ss,
                        dst, ds, rows, cols);
  if (bytes == 8)
    return transpose_as(stream, hn::FixedTag<std::uint64_t, kVectorBytes / 8>(), block64, src, ss,
                        dst, ds, rows, cols);
  return false;
}
#endif

bool TransposeImpl(bool stream, std::size_t bytes, const void* src, std::int64_t ss, void* dst,
                   std::int64_t ds, std::int64_t rows, std::int64_t cols) {
  (void)stream, (void)bytes, (void)src, (void)ss, (void)dst, (void)ds, (void)rows,
      (void)cols;  // SCALAR
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  return transpose_sized<64>(  // 512-bit rows
      [](auto* r) { transpose_32x32_u16(r); }, [](auto* r) { transpose_16x16_u32(r); },
      [](auto* r) { transpose_8x8_u64(r); }, stream, bytes, src, ss, dst, ds, rows, cols);
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  return transpose_sized<32>(  // 256-bit rows
      [](auto* r) { transpose_16x16_u16(r); }, [](auto* r) { transpose_8x8_u32(r); },
      [](auto* r) { transpose_4x4_u64(r); }, stream, bytes, src, ss, dst, ds, rows, cols);
#elif HWY_TARGET != HWY_SCALAR
  const hn::FixedTag<std::uint16_t, 8> d16;  // 128-bit rows
  const auto block16 = [d16](auto* r) { transpose_8x8_u16(d16, r); };
  if (bytes == 2) return transpose_as(stream, d16, block16, src, ss, dst, ds, rows, cols);
#endif
  return false;
}

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hetero::cpu::vec {

HWY_EXPORT(TransposeImpl);

bool transpose(std::size_t bytes, const void* src, std::int64_t src_stride, void* dst,
               std::int64_t dst_stride, std::int64_t rows, std::int64_t cols) {
  return HWY_DYNAMIC_DISPATCH(TransposeImpl)(false, bytes, src, src_stride, dst, dst_stride, rows,
                                             cols);
}

bool transpose_streaming(std::size_t bytes, const void* src, std::int64_t src_stride, void* dst,
                         std::int64_t dst_stride, std::int64_t rows, std::int64_t cols) {
  return HWY_DYNAMIC_DISPATCH(TransposeImpl)(true, bytes, src, src_stride, dst, dst_stride, rows,
                                             cols);
}

// The sizes of cpu0's caches from sysfs as lscpu reads them ("32768K"): its L2 (0 where
// unreadable) and the largest of its level-2-or-above caches, the last level it shares with
// its neighbours (0 where unreadable). Not sysconf(_SC_LEVEL3_CACHE_SIZE): in one VM it
// reported the host's 384 MiB, the L3 of every core complex together.
namespace {
struct CacheSizes {
  std::size_t l2 = 0;
  std::size_t last_level = 0;
};

CacheSizes cache_sizes() {
  CacheSizes sizes;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
    int level = 0;
    std::size_t size = 0;
    std::string unit;
    if (!(level_file >> level) || level < 2 || !(size_file >> size)) continue;
    size_file >> unit;
    if (unit == "K") size <<= 10;
    if (unit == "M") size <<= 20;
    if (level == 2) sizes.l2 = std::max(sizes.l2, size);
    sizes.last_level = std::max(sizes.last_level, size);
  }
  return sizes;
}
}  // namespace

// Note [When a transpose streams]: the first rule was glibc memcpy's, more than half the
// last-level cache. On an AVX-512 Xeon with a 260 MiB L3 (2 MiB of L2 per core), 2 threads,
// that kept every size below 130 MiB on ordinary stores, and those were 2-3.5x slower than
// the non-temporal bands, even counting a sum that reads the result back (x.t().contiguous()
// then .sum(), ms, ordinary / streaming): float32 1 MiB 0.047 / 0.092, 4 MiB 0.29 / 0.30,
// 8 MiB 0.96 / 0.67, 16 MiB 1.74 / 1.21, 32 MiB 6.5 / 2.4, 64 MiB 12.6 / 5.7; float16 2 MiB
// 0.18 / 0.19, 4 MiB 0.77 / 0.42, 32 MiB 9.2 / 2.9. A transpose's ordinary stores write
// short runs of many rows, each line read for ownership from the L3 first. The break-even was
// the threads' L2 caches together (float32 tied there, float16 was 1.8x faster streamed), so
// from that size on a transpose streams (at most half the last level, the first rule, where
// the L2s are larger than that). Where sysfs gives no L2, 1 MiB per thread.
bool streaming_pays(std::size_t bytes, int threads) {
  static const CacheSizes sizes = cache_sizes();
  const std::size_t l2 = sizes.l2 > 0 ? sizes.l2 : std::size_t{1} << 20;
  std::size_t threshold = l2 * static_cast<std::size_t>(std::max(threads, 1));
  if (sizes.last_level > 0) threshold = std::min(threshold, sizes.last_level / 2);
  return bytes >= threshold;
}

}  // namespace hetero::cpu::vec
#endif
