// SPDX-License-Identifier: Apache-2.0
// fill and convert (copies and casts, strided and transposed).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <hetero/sdk/element_conversion.hpp>

#include "kernels.hpp"
#include "vector_kernels.hpp"
#include "vector_transpose.hpp"

namespace hetero::cpu::kernels {
namespace {

// n dense elements set to v. 2-byte elements (float16, bfloat16, whose class types the
// compiler stored one at a time: 4x float32's time for the same count, 0.14 ms for the
// [256, 16, 10, 10] ones_like of a bfloat16 convolution's backward) go as 64-bit words of
// four copies of their bits, between an unaligned head and tail.
template <class T>
void fill_dense(T* d, std::int64_t n, T v) {
  if constexpr (sizeof(T) == 2) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    const std::uint64_t word = std::uint64_t{bits} * 0x0001000100010001ULL;
    std::int64_t i = 0;
    for (; i < n && reinterpret_cast<std::uintptr_t>(d + i) % sizeof word != 0; ++i) d[i] = v;
    auto* bytes = reinterpret_cast<unsigned char*>(d + i);
    const std::int64_t words = (n - i) / 4;
    for (std::int64_t k = 0; k < words; ++k) std::memcpy(bytes + k * 8, &word, sizeof word);
    for (i += words * 4; i < n; ++i) d[i] = v;
  } else {
    std::fill_n(d, n, v);  // vectorised stores
  }
}

}  // namespace

void fill(const StridedView& out, Scalar value) {
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T v = scalar_as<T>(value);
    T* dst = data_of<T>(out);
    for_each_row<1>({&out}, [&](auto off, std::int64_t n, auto st) {
      T* d = dst + off[0];
      if (st[0] == 1) {
        fill_dense(d, n, v);
      } else {
        for (std::int64_t i = 0; i < n; ++i) d[i * st[0]] = v;
      }
    });
  });
}

namespace {

// A copy whose two innermost (merged) dimensions are transposed between source and
// destination (x.t().contiguous(), copy_ into a transposed view): dst rows are contiguous
// where src columns are. Walked in square tiles, so that both sides stay within a few cache
// lines per row of the tile, instead of one side striding a whole row per element (3.3x
// libtorch's time at 4096x4096).
// - Copies within a dtype of 2, 4 or 8 bytes (float16 and bfloat16 as their bits): tiles
//   moved by vec::transpose in 16 x 16, 8 x 8 or 4 x 4 blocks through registers. A tile
//   is 16-32 KiB: 64 x 64 elements of 4 or 8 bytes, 128 x 128 of 2. At 4096x4096: float32
//   3.8-4.0 ms (11.3-12.0 element by element; 4.7 with tiles of 32, 6.4 with 128), float16
//   2.1-2.2 ms (3.0 with tiles of 64, 2.1 with 256), float64 7.6 ms (8.0 with 32).
//   A result larger than the threads' L2 caches (vec::streaming_pays; Note [When a transpose
//   streams]) goes instead in bands of source
//   rows, one band per task, written with non-temporal stores (vec::transpose_streaming):
//   float32 3.0 ms, float16 1.3 ms (0.92-1.05x and 1.07-1.36x memcpy's time).
// - Conversions, 1-byte dtypes and CPUs without the vector kernel: element by element in
//   tiles of 16 x 16 (8 took 16.6 ms, 32 14.5: each tile row is on a page of its own on
//   both sides, and larger tiles outran the L1 TLB; uint8 took 11.8 ms with 16, 17 with
//   32 or 64). Copying float32 as uint32 element by element was slower (19 ms): the
//   compiler packs the strided integer loads into vectors.
// Returns false when the layout is not such a transpose.
template <class D, class S>
bool convert_transposed(const S* s, D* d, const StridedView& src, const StridedView& dst) {
  if constexpr (std::is_same_v<S, D> && !std::is_arithmetic_v<S>) {  // float16, bfloat16
    static_assert(sizeof(S) == 2);
    return convert_transposed(reinterpret_cast<const std::uint16_t*>(s),
                              reinterpret_cast<std::uint16_t*>(d), src, dst);
  }
  // Copies within a dtype of 2, 4 or 8 bytes: tiles of 16-32 KiB, each moved by the vector
  // kernel in blocks through registers, where it runs on this CPU.
  constexpr bool kBits =
      std::is_same_v<S, D> && (sizeof(S) == 2 || sizeof(S) == 4 || sizeof(S) == 8);
  const bool registers = kBits && vec::transpose(sizeof(S), nullptr, 1, nullptr, 1, 0, 0);
  const std::int64_t kTile = registers ? (sizeof(S) == 2 ? 128 : 64) : 16;
  const LoopShape<2> l = make_loop<2>({&dst, &src});
  if (l.ndim < 2 || dst.numel() < 16 * 16) return false;
  const int a = l.ndim - 2, b = l.ndim - 1;
  const auto& ds = l.strides[0];
  const auto& ss = l.strides[1];
  if (ds[b] != 1 || ss[a] != 1 || ss[b] == 1) return false;
  const std::int64_t rows = l.shape[a], cols = l.shape[b];
  const std::int64_t row_tiles = (rows + kTile - 1) / kTile, col_tiles = (cols + kTile - 1) / kTile;
  std::int64_t outer = 1;
  for (int k = 0; k < a; ++k) outer *= l.shape[k];
  // Element offsets of matrix `m` (< outer) on both sides.
  auto matrix_at = [&](std::int64_t m) {
    std::int64_t d_off = dst.offset, s_off = src.offset;
    for (int k = a - 1; k >= 0; --k) {
      const std::int64_t i = m % l.shape[k];
      m /= l.shape[k];
      d_off += i * ds[k];
      s_off += i * ss[k];
    }
    return std::pair{d_off, s_off};
  };
  if (registers && vec::streaming_pays(static_cast<std::size_t>(dst.numel()) * sizeof(D),
                                       static_cast<int>(kernel_threads()))) {
    // Larger than the caches: bands of source rows, non-temporal stores (vector_transpose.hpp).
    const std::int64_t band = vec::streaming_band(sizeof(S));
    const std::int64_t bands = (cols + band - 1) / band;
    parallel_range(outer * bands, band * rows, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t t = begin; t < end; ++t) {
        const auto [d_off, s_off] = matrix_at(t / bands);
        const std::int64_t j0 = (t % bands) * band;
        vec::transpose_streaming(sizeof(S), s + s_off + j0 * ss[b], ss[b], d + d_off + j0, ds[a],
                                 rows, std::min(band, cols - j0));
      }
    });
    return true;
  }
  parallel_range(outer * row_tiles, kTile * cols, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t t = begin; t < end; ++t) {
      const auto [d_off, s_off] = matrix_at(t / row_tiles);
      const std::int64_t i0 = (t % row_tiles) * kTile, i1 = std::min(rows, i0 + kTile);
      for (std::int64_t ct = 0; ct < col_tiles; ++ct) {
        const std::int64_t j0 = ct * kTile, j1 = std::min(cols, j0 + kTile);
        if (registers) {
          vec::transpose(sizeof(S), s + s_off + i0 + j0 * ss[b], ss[b], d + d_off + i0 * ds[a] + j0,
                         ds[a], i1 - i0, j1 - j0);
          continue;
        }
        for (std::int64_t i = i0; i < i1; ++i) {
          D* o = d + d_off + i * ds[a];
          const S* in = s + s_off + i;
          for (std::int64_t j = j0; j < j1; ++j) o[j] = convert_element<D>(in[j * ss[b]]);
        }
      }
    }
  });
  return true;
}

}  // namespace

void convert(const StridedView& src, const StridedView& dst) {
  dispatch(src.dtype, [&](auto stag) {
    using S = decltype(stag);
    dispatch(dst.dtype, [&](auto dtag) {
      using D = decltype(dtag);
      const S* s = data_of<S>(src);
      D* d = data_of<D>(dst);
      if (convert_transposed(s, d, src, dst)) return;
      for_each_row<2>({&dst, &src}, [&](auto off, std::int64_t n, auto st) {
        D* o = d + off[0];
        const S* i0 = s + off[1];
        if (st[0] == 1 && st[1] == 1) {
          if constexpr (std::is_same_v<S, D>) {  // a copy: inline, as im2col's short rows want
            std::copy_n(i0, n, o);
            return;
          }
          if (vec::convert(src.dtype, dst.dtype, i0, o, n)) return;
          for (std::int64_t i = 0; i < n; ++i) o[i] = convert_element<D>(i0[i]);
        } else {
          for (std::int64_t i = 0; i < n; ++i) o[i * st[0]] = convert_element<D>(i0[i * st[1]]);
        }
      });
    });
  });
}

}  // namespace hetero::cpu::kernels
