// SPDX-License-Identifier: Apache-2.0
// fill, convert (copy/cast), unary and binary kernels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include <hetero/internal_assert.hpp>
#include <hetero/sdk/element_conversion.hpp>
#include <hetero/sdk/elementwise_ops.hpp>

#include "kernels.hpp"
#include "vector_kernels.hpp"
#include "vector_transpose.hpp"

namespace hetero::cpu::kernels {
namespace {

// Dense runs go to the vector kernels (Note [Vector kernels]) where they have the op and
// dtype, whatever their length, so that an element's result does not depend on the size of
// the tensor it is in; the rest runs the scalar rule `op`.
template <class T, class Op>
void apply_unary(UnaryOp code, const StridedView& in, const StridedView& out, Op op) {
  const T* src = data_of<T>(in);
  T* dst = data_of<T>(out);
  for_each_row<2>({&in, &out}, [&](auto off, std::int64_t n, auto st) {
    const T* s = src + off[0];
    T* d = dst + off[1];
    if (st[0] == 1 && st[1] == 1) {
      if (vec::unary(code, in.dtype, s, d, n)) return;
      for (std::int64_t i = 0; i < n; ++i) d[i] = op(s[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) d[i * st[1]] = op(s[i * st[0]]);
    }
  });
}

// Element-wise binary ops are exact (IEEE arithmetic, comparisons), so the vector kernels
// give the scalar loop's results bit for bit; tiny dense tensors skip them (no dispatch).
template <class T, class Op>
void apply_binary(BinaryOp code, const StridedView& a, const StridedView& b, const StridedView& out,
                  Op op) {
  constexpr std::int64_t kVectorMin = 64;
  const T* pa = data_of<T>(a);
  const T* pb = data_of<T>(b);
  T* po = data_of<T>(out);
  if (const std::int64_t n = out.numel();
      n < kParallelThreshold && a.is_contiguous() && b.is_contiguous() && out.is_contiguous()) {
    // Small and dense (the common case of small tensors): one loop, no loop planning.
    const T* x = pa + a.offset;
    const T* y = pb + b.offset;
    T* o = po + out.offset;
    if (n >= kVectorMin && vec::binary(code, out.dtype, x, 1, y, 1, o, n)) return;
    for (std::int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i]);
    return;
  }
  for_each_row<3>({&out, &a, &b}, [&](auto off, std::int64_t n, auto st) {
    T* o = po + off[0];
    const T* x = pa + off[1];
    const T* y = pb + off[2];
    if (st[0] == 1 && (st[1] == 0 || st[1] == 1) && (st[2] == 0 || st[2] == 1) && n >= kVectorMin &&
        vec::binary(code, out.dtype, x, static_cast<int>(st[1]), y, static_cast<int>(st[2]), o, n))
      return;
    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
      for (std::int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i]);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
      const T yv = *y;
      for (std::int64_t i = 0; i < n; ++i) o[i] = op(x[i], yv);
    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
      const T xv = *x;
      for (std::int64_t i = 0; i < n; ++i) o[i] = op(xv, y[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) o[i * st[0]] = op(x[i * st[1]], y[i * st[2]]);
    }
  });
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
        std::fill_n(d, n, v);  // dense rows: vectorised stores
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
//   A result larger than the caches (vec::streaming_pays) goes instead in bands of source
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
  if (registers && vec::streaming_pays(static_cast<std::size_t>(dst.numel()) * sizeof(D))) {
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

// The element rules are the SDK's (Note [Element-wise semantics], elementwise_ops.hpp);
// each op is its own loop (visit_unary/visit_binary), so the compiler vectorises it. The
// core calls only for ops and dtypes the tables define (Backend::supports' default).
void unary(UnaryOp op, const StridedView& in, const StridedView& out) {
  dispatch(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    HETERO_INTERNAL_ASSERT(supports_unary<T>(op), "cpu backend: unary " + std::string(op_name(op)) +
                                                      " on " + std::string(dtype_name(in.dtype)));
    visit_unary(op, [&](auto c) {
      constexpr UnaryOp Op = decltype(c)::value;
      // Only the pairs the table defines are instantiated (the assert above refuses the
      // rest): a third fewer loops to compile, none that could run.
      if constexpr (supports_unary<T>(Op))
        apply_unary<T>(op, in, out, [](T x) { return unary_element<Op>(x); });
    });
  });
}

void binary(BinaryOp op, const StridedView& a, const StridedView& b, const StridedView& out) {
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    HETERO_INTERNAL_ASSERT(supports_binary<T>(op), "cpu backend: binary " +
                                                       std::string(op_name(op)) + " on " +
                                                       std::string(dtype_name(out.dtype)));
    visit_binary(op, [&](auto c) {
      constexpr BinaryOp Op = decltype(c)::value;
      if constexpr (supports_binary<T>(Op))  // as in unary()
        apply_binary<T>(op, a, b, out, [](T x, T y) { return binary_element<Op>(x, y); });
    });
  });
}

void ternary(TernaryOp op, const StridedView& c, const StridedView& x, const StridedView& y,
             const StridedView& out) {
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    visit_ternary(op, [&](auto code) {
      constexpr TernaryOp Op = decltype(code)::value;
      const T* pc = data_of<T>(c);
      const T* px = data_of<T>(x);
      const T* py = data_of<T>(y);
      T* po = data_of<T>(out);
      for_each_row<4>({&out, &c, &x, &y}, [&](auto off, std::int64_t n, auto st) {
        T* o = po + off[0];
        const T* cc = pc + off[1];
        const T* xx = px + off[2];
        const T* yy = py + off[3];
        const auto unit = [](std::int64_t s) { return s == 0 || s == 1; };
        if (st[0] == 1 && unit(st[1]) && unit(st[2]) && unit(st[3])) {
          // Dense operands and broadcast scalars (where(c, 0.0, g): ReLU's gradient), each
          // stride a constant of the loop, so that it vectorises; 3 ns per element through
          // the general loop below, for the 0-stride operand's multiply and the gather.
          const auto run = [&](auto sc, auto sx, auto sy) {
            for (std::int64_t i = 0; i < n; ++i)
              o[i] = ternary_element<Op>(cc[i * sc], xx[i * sx], yy[i * sy]);
          };
          using Zero = std::integral_constant<std::int64_t, 0>;
          using One = std::integral_constant<std::int64_t, 1>;
          const auto pick = [&](std::int64_t s, auto&& then) {
            return s == 0 ? then(Zero{}) : then(One{});
          };
          pick(st[1], [&](auto sc) {
            pick(st[2], [&](auto sx) { pick(st[3], [&](auto sy) { run(sc, sx, sy); }); });
          });
        } else {
          for (std::int64_t i = 0; i < n; ++i)
            o[i * st[0]] = ternary_element<Op>(cc[i * st[1]], xx[i * st[2]], yy[i * st[3]]);
        }
      });
    });
  });
}

}  // namespace hetero::cpu::kernels
