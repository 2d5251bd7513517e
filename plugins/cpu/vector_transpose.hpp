// SPDX-License-Identifier: Apache-2.0
#pragma once
// Transposed copies in Highway (Note [Vector kernels], vector_kernels.hpp): the inner loops
// of x.t().contiguous() and of copies into transposed views (convert_transposed in
// kernels_copy.cpp), elements moved as bits in square blocks through registers.
// Each returns true when it wrote, and false, writing nothing, where no vector path exists
// (an element size it does not take, or a target without the instructions): the caller
// then copies element by element, with the same result. Thread-safe; threads are the
// caller's business.
#include <cstddef>
#include <cstdint>

namespace hetero::cpu::vec {

/// dst[i * dst_stride + j] = src[j * src_stride + i] for i < rows, j < cols (strides in
/// elements, >= 1; the two regions do not overlap): a transposed copy of elements of
/// `bytes` bytes, moved as bits, in square blocks of one vector's lanes through registers
/// (AVX-512: 32 x 32 for 2 bytes, 16 x 16 for 4, 8 x 8 for 8; AVX2: 16 x 16, 8 x 8, 4 x 4).
/// 2-byte elements on every vector target (8 x 8 below AVX2), 4 and 8
/// bytes where the CPU has AVX2; false, writing nothing, otherwise (a call with rows =
/// cols = 0 asks whether it would run). For a tile that stays in the caches: dst is written
/// with ordinary stores.
bool transpose(std::size_t bytes, const void* src, std::int64_t src_stride, void* dst,
               std::int64_t dst_stride, std::int64_t rows, std::int64_t cols);

/// As transpose() (same arguments, result and availability), for a copy larger than the
/// caches, given as bands of at most streaming_band(bytes) destination columns (source
/// rows; a wider `cols` is walked band after band). Each band is moved in tiles of 32
/// destination rows: the source rows read ahead with software prefetches (the hardware
/// prefetchers follow few of a band's streams), the tile transposed into a 8-16 KiB buffer
/// in L1, and the buffer's rows written with non-temporal stores, which skip reading the
/// destination's cache lines first (the read-for-ownership that costs an ordinary store
/// half again of memcpy's traffic). Rows whose start is not aligned to the vector width get
/// ordinary stores from the buffer. Ends with a store fence: the calling thread's writes
/// are complete when it returns, and the caller's hand-off to other threads (the thread
/// pool's join) publishes them. At 4096x4096 on the 2-core EPYC, 2 threads, paired with
/// memcpy of the same bytes (bench_large_ops --paired): float32 0.92-1.05x memcpy's time
/// (transpose(): 1.37x), float16 1.07-1.36x (1.74x); docs/bench/large_ops.md.
bool transpose_streaming(std::size_t bytes, const void* src, std::int64_t src_stride, void* dst,
                         std::int64_t dst_stride, std::int64_t rows, std::int64_t cols);

/// The destination columns (source rows) of one band of transpose_streaming() for elements
/// of `bytes` bytes: 128 columns, at most 512 bytes of them (128 of 2 bytes, 128 of 4, 64
/// of 8), so each tile row it writes is 4-8 whole cache lines (Note [Streaming bands],
/// vector_transpose.cpp); 0 for sizes transpose_streaming() does not take.
constexpr std::int64_t streaming_band(std::size_t bytes) {
  return bytes == 2 || bytes == 4 ? 128 : bytes == 8 ? 64 : 0;
}

/// Whether a transposed copy writing `bytes` bytes on `threads` threads should take
/// transpose_streaming(): at least the threads' L2 caches together (cpu0's L2 in sysfs, else
/// 1 MiB, times `threads`), or half the last-level cache where that is smaller; a
/// smaller result is left in the caches for the op that reads it next (Note [When a
/// transpose streams], vector_transpose.cpp).
bool streaming_pays(std::size_t bytes, int threads);

}  // namespace hetero::cpu::vec
