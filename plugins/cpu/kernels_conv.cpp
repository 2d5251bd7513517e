// SPDX-License-Identifier: Apache-2.0
// Backend::conv2d on the cpu (interface minor 8): float32 on oneDNN where it has a primitive
// (onednn_conv.cpp), the rest (float64, and what oneDNN declines) on the kernels below.
//
// Note [Convolution kernels on the cpu]: the core's composition (Note [Convolution as GEMM])
// builds one im2col matrix for the whole batch ([C KH KW, N OH OW]: 15 MB for LeNet's second
// layer at batch 256), and every GEMM, copy and fold then streams it through memory; that
// traffic, not the arithmetic, was most of conv2d's time. Here the batch is cut into chunks
// of images whose im2col block fits in half of a core's L2 (kChunkElements), the chunks are
// spread over the device's kernel threads, and each thread runs, per chunk and group, the
// same im2col + GEMM on its own cache-resident block (one cblas call on its own thread, as
// PyTorch's slow_conv2d does per image):
// - forward: im2col(x) [Kg, B L], then W_g [Og, Kg] times it into the output rows;
// - backward_input: W_g^T times the output's gradient [Og, B L] into the block, then col2im
//   (the adjoint of im2col) adds it into the input's gradient;
// - backward_weight: the output's gradient times im2col(x)^T, accumulated over a thread's
//   chunks, and the threads' partial sums added in thread order (deterministic for a given
//   thread count, as the GEMM's own k split).
// Kg = C / groups * KH * KW, L = OH * OW, B images per chunk.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels.hpp"
#include "onednn_conv.hpp"
#include "openblas_gemm.hpp"
#include "thread_pool.hpp"
#include "vector_kernels.hpp"
#include "vector_rows.hpp"

namespace hetero::cpu::kernels {
namespace {

/// im2col elements per chunk: 256 KiB of float32 (512 of float64), half of one core's L2 on
/// the machines measured, so that the block, the weight and the GEMM's packed panels stay in it.
constexpr std::int64_t kChunkElements = std::int64_t{1} << 16;

struct Geometry {
  Conv2dArgs a;
  std::int64_t cg = 0, og = 0;  // input channels and outputs per group
  std::int64_t kg = 0;          // im2col rows per group: cg * kh * kw
  std::int64_t l = 0;           // output positions per image: oh * ow
  std::int64_t image = 0;       // input elements per image: c * h * w
  std::int64_t chunk = 1;       // images per chunk
  std::int64_t chunks = 0;
};

Geometry geometry_of(const Conv2dArgs& a) {
  Geometry g;
  g.a = a;
  g.cg = a.c / a.groups;
  g.og = a.o / a.groups;
  g.kg = g.cg * a.kh * a.kw;
  g.l = a.oh * a.ow;
  g.image = a.c * a.h * a.w;
  g.chunk = std::clamp<std::int64_t>(kChunkElements / std::max<std::int64_t>(g.kg * g.l, 1), 1,
                                     std::max<std::int64_t>(a.n, 1));
  g.chunks = (a.n + g.chunk - 1) / g.chunk;
  return g;
}

/// The output positions j < out whose input position j * stride + offset lies in [0, in):
/// [lo, hi), empty (lo == hi) when none.
std::pair<std::int64_t, std::int64_t> valid_range(std::int64_t out, std::int64_t in,
                                                  std::int64_t stride, std::int64_t offset) {
  const std::int64_t lo = std::min(offset >= 0 ? 0 : (-offset + stride - 1) / stride, out);
  const std::int64_t last = in - 1 - offset;  // j * stride <= last
  const std::int64_t hi = last < 0 ? lo : std::clamp(last / stride + 1, lo, out);
  return {lo, hi};
}

template <class T>
constexpr DType kDType = sizeof(T) == 8 ? DType::float64 : DType::float32;

// Whether every window lies inside the input (no padding reached) and the stride along w is
// 1: im2col is then one copy of a (channel, kernel row, kernel column, output row) block of
// output-width rows, and col2im one add of it.
bool windows_inside(const Conv2dArgs& a) {
  return a.ph == 0 && a.pw == 0 && a.sw == 1;  // valid_range is then whole for every p, q
}

/// Rows [channel0, channel0 + cg) x (kh, kw) of one image's im2col into `col` (row stride ld):
/// col[(ci, p, q)][i * ow + j] = x[channel0 + ci][i sh - ph + p dh][j sw - pw + q dw], zero
/// outside the input. Where the windows lie inside, one vec::copy_blocks call; else, per
/// kernel position, the zeros and a copy of the block of rows inside.
template <class T>
void im2col(const Geometry& g, const T* x, std::int64_t channel0, T* col, std::int64_t ld) {
  const Conv2dArgs& a = g.a;
  const T* planes = x + channel0 * a.h * a.w;
  if (windows_inside(a) &&
      vec::copy_blocks(kDType<T>, planes, {a.h * a.w, a.dh * a.w, a.dw, a.sh * a.w}, col,
                       {a.kh * a.kw * ld, a.kw * ld, ld, a.ow}, {g.cg, a.kh, a.kw, a.oh}, a.ow))
    return;
  for (std::int64_t ci = 0; ci < g.cg; ++ci) {
    const T* plane = planes + ci * a.h * a.w;
    for (std::int64_t p = 0; p < a.kh; ++p) {
      const std::int64_t row_shift = p * a.dh - a.ph;
      const auto [i0, i1] = valid_range(a.oh, a.h, a.sh, row_shift);
      for (std::int64_t q = 0; q < a.kw; ++q) {
        T* out = col + ((ci * a.kh + p) * a.kw + q) * ld;
        const std::int64_t shift = q * a.dw - a.pw;
        const auto [j0, j1] = valid_range(a.ow, a.w, a.sw, shift);
        std::fill(out, out + i0 * a.ow, T(0));
        std::fill(out + i1 * a.ow, out + a.oh * a.ow, T(0));
        if (i0 == i1) continue;
        if (j0 > 0 || j1 < a.ow)
          for (std::int64_t i = i0; i < i1; ++i) {
            std::fill(out + i * a.ow, out + i * a.ow + j0, T(0));
            std::fill(out + i * a.ow + j1, out + (i + 1) * a.ow, T(0));
          }
        if (j0 == j1) continue;
        const T* src = plane + (i0 * a.sh + row_shift) * a.w + j0 * a.sw + shift;
        T* dst = out + i0 * a.ow + j0;
        const std::int64_t rows = i1 - i0, n = j1 - j0, src_step = a.sh * a.w;
        if (a.sw == 1 && vec::copy_blocks(kDType<T>, src, {0, 0, 0, src_step}, dst, {0, 0, 0, a.ow},
                                          {1, 1, 1, rows}, n))
          continue;
        for (std::int64_t i = 0; i < rows; ++i)
          for (std::int64_t j = 0; j < n; ++j) dst[i * a.ow + j] = src[i * src_step + j * a.sw];
      }
    }
  }
}

/// The adjoint of im2col: each element of `col` added into its place of one image's input
/// gradient `dx` (channels [channel0, channel0 + cg)); positions outside the input dropped.
template <class T>
void col2im(const Geometry& g, const T* col, std::int64_t ld, std::int64_t channel0, T* dx) {
  const Conv2dArgs& a = g.a;
  T* planes = dx + channel0 * a.h * a.w;
  if (windows_inside(a) &&
      vec::add_blocks(kDType<T>, col, {a.kh * a.kw * ld, a.kw * ld, ld, a.ow}, planes,
                      {a.h * a.w, a.dh * a.w, a.dw, a.sh * a.w}, {g.cg, a.kh, a.kw, a.oh}, a.ow))
    return;
  for (std::int64_t ci = 0; ci < g.cg; ++ci) {
    T* plane = planes + ci * a.h * a.w;
    for (std::int64_t p = 0; p < a.kh; ++p) {
      const std::int64_t row_shift = p * a.dh - a.ph;
      const auto [i0, i1] = valid_range(a.oh, a.h, a.sh, row_shift);
      for (std::int64_t q = 0; q < a.kw; ++q) {
        const std::int64_t shift = q * a.dw - a.pw;
        const auto [j0, j1] = valid_range(a.ow, a.w, a.sw, shift);
        if (i0 == i1 || j0 == j1) continue;
        const T* src = col + ((ci * a.kh + p) * a.kw + q) * ld + i0 * a.ow + j0;
        T* dst = plane + (i0 * a.sh + row_shift) * a.w + j0 * a.sw + shift;
        const std::int64_t rows = i1 - i0, n = j1 - j0, dst_step = a.sh * a.w;
        if (a.sw == 1 && vec::add_blocks(kDType<T>, src, {0, 0, 0, a.ow}, dst, {0, 0, 0, dst_step},
                                         {1, 1, 1, rows}, n))
          continue;
        for (std::int64_t i = 0; i < rows; ++i)
          for (std::int64_t j = 0; j < n; ++j) dst[i * dst_step + j * a.sw] += src[i * a.ow + j];
      }
    }
  }
}

/// Threads the chunks are split over: the kernel threads, at most one per chunk.
std::int64_t chunk_parts(const Geometry& g) {
  return std::min<std::int64_t>(kernel_threads(), g.chunks);
}

/// One thread's blocks for a chunk: im2col [Kg, B L] and output rows [Og, B L], allocated once
/// per kernel call and thread, uninitialised (every element is written before it is read).
template <class T>
struct Scratch {
  explicit Scratch(const Geometry& g)
      : col(std::make_unique_for_overwrite<T[]>(static_cast<std::size_t>(g.kg * g.chunk * g.l))),
        rows(std::make_unique_for_overwrite<T[]>(static_cast<std::size_t>(g.og * g.chunk * g.l))) {}
  std::unique_ptr<T[]> col, rows;
};

/// One chunk as a kernel works on it: images [n0, n0 + nb), its blocks' row stride
/// ld = nb * L, the thread's part index, whether it is the part's first chunk, and the
/// thread's scratch.
template <class T>
struct Chunk {
  std::int64_t part, n0, nb, ld;
  bool first;
  Scratch<T>& scratch;
};

/// fn(Chunk) for every chunk, the chunks split into contiguous ranges, one per part
/// (chunk_parts), each range in order on its thread.
template <class T, class F>
void for_each_chunk(const Geometry& g, F&& fn) {
  const std::int64_t parts = chunk_parts(g);
  parallel_each(parts, [&](std::int64_t part) {
    Scratch<T> scratch(g);
    const std::int64_t first = g.chunks * part / parts, last = g.chunks * (part + 1) / parts;
    for (std::int64_t chunk = first; chunk < last; ++chunk) {
      const std::int64_t n0 = chunk * g.chunk, nb = std::min(g.chunk, g.a.n - n0);
      fn(Chunk<T>{part, n0, nb, nb * g.l, chunk == first, scratch});
    }
  });
}

/// Rows [o0, o0 + og) of images [n0, n0 + nb) of a [n, o, l] tensor as one [og, nb l] block
/// (row stride nb l), or back.
template <class T>
void gather_rows(const Geometry& g, const T* src, std::int64_t n0, std::int64_t nb, std::int64_t o0,
                 T* block) {
  for (std::int64_t i = 0; i < nb; ++i)
    for (std::int64_t r = 0; r < g.og; ++r)
      std::memcpy(block + r * nb * g.l + i * g.l, src + ((n0 + i) * g.a.o + o0 + r) * g.l,
                  static_cast<std::size_t>(g.l) * sizeof(T));
}
template <class T>
void scatter_rows(const Geometry& g, const T* block, std::int64_t n0, std::int64_t nb,
                  std::int64_t o0, T* dst) {
  for (std::int64_t i = 0; i < nb; ++i)
    for (std::int64_t r = 0; r < g.og; ++r)
      std::memcpy(dst + ((n0 + i) * g.a.o + o0 + r) * g.l, block + r * nb * g.l + i * g.l,
                  static_cast<std::size_t>(g.l) * sizeof(T));
}

template <class T>
void forward(const Geometry& g, const T* x, const T* w, T* y) {
  for_each_chunk<T>(g, [&](const Chunk<T>& c) {
    T* col = c.scratch.col.get();
    for (std::int64_t gi = 0; gi < g.a.groups; ++gi) {
      for (std::int64_t i = 0; i < c.nb; ++i)
        im2col(g, x + (c.n0 + i) * g.image, gi * g.cg, col + i * g.l, c.ld);
      const T* wg = w + gi * g.og * g.kg;
      if (c.nb == 1) {  // straight into the output's rows
        gemm_on_this_thread(false, false, g.og, g.l, g.kg, T(1), wg, g.kg, col, c.ld, T(0),
                            y + (c.n0 * g.a.o + gi * g.og) * g.l, g.l);
        continue;
      }
      gemm_on_this_thread(false, false, g.og, c.ld, g.kg, T(1), wg, g.kg, col, c.ld, T(0),
                          c.scratch.rows.get(), c.ld);
      scatter_rows(g, c.scratch.rows.get(), c.n0, c.nb, gi * g.og, y);
    }
  });
}

template <class T>
void backward_input(const Geometry& g, const T* gy, const T* w, T* dx) {
  for_each_chunk<T>(g, [&](const Chunk<T>& c) {
    T* col = c.scratch.col.get();
    std::fill(dx + c.n0 * g.image, dx + (c.n0 + c.nb) * g.image, T(0));
    for (std::int64_t gi = 0; gi < g.a.groups; ++gi) {
      const T* block = gy + (c.n0 * g.a.o + gi * g.og) * g.l;  // one image: its rows as they are
      if (c.nb > 1) {
        gather_rows(g, gy, c.n0, c.nb, gi * g.og, c.scratch.rows.get());
        block = c.scratch.rows.get();
      }
      gemm_on_this_thread(true, false, g.kg, c.ld, g.og, T(1), w + gi * g.og * g.kg, g.kg, block,
                          c.ld, T(0), col, c.ld);
      for (std::int64_t i = 0; i < c.nb; ++i)
        col2im(g, col + i * g.l, c.ld, gi * g.cg, dx + (c.n0 + i) * g.image);
    }
  });
}

template <class T>
void backward_weight(const Geometry& g, const T* gy, const T* x, T* dw) {
  const std::int64_t parts = chunk_parts(g), size = g.a.o * g.kg;
  std::vector<T> partial(static_cast<std::size_t>(size * (parts - 1)));
  for_each_chunk<T>(g, [&](const Chunk<T>& c) {
    T* acc = c.part == 0 ? dw : partial.data() + (c.part - 1) * size;
    T* col = c.scratch.col.get();
    for (std::int64_t gi = 0; gi < g.a.groups; ++gi) {
      for (std::int64_t i = 0; i < c.nb; ++i)
        im2col(g, x + (c.n0 + i) * g.image, gi * g.cg, col + i * g.l, c.ld);
      gather_rows(g, gy, c.n0, c.nb, gi * g.og, c.scratch.rows.get());
      gemm_on_this_thread(false, true, g.og, g.kg, c.ld, T(1), c.scratch.rows.get(), c.ld, col,
                          c.ld, c.first ? T(0) : T(1), acc + gi * g.og * g.kg, g.kg);
    }
  });
  // Each part's sum in part order: the same chunks per part for a given thread count.
  for (std::int64_t part = 1; part < parts; ++part) {
    const T* add = partial.data() + (part - 1) * size;
    for (std::int64_t i = 0; i < size; ++i) dw[i] += add[i];
  }
}

template <class T>
T* host(const StridedView& v) {
  return data_of<T>(v) + v.offset;
}

}  // namespace

// Input channels per group below which the gradients stay on the kernels here:
// oneDNN's backward kernels for 1-3 channels (LeNet's and ResNet-18's first layers, over
// 1-channel images) took 3-4x the im2col kernels' time (2 threads, 2026-11-26: LeNet conv1
// at batch 256 19.4 vs 5.0 ms forward + backward, ResNet-18's 7x7 stem at batch 128 24 vs
// 6.8 ms). Its forward is the faster at any channel count (2026-11-27, bench_conv: conv1
// 1.06-1.19 vs 1.78-1.89 ms, the stem 0.91-1.01 vs 1.61-1.75 ms). The weight's gradient is
// the exception where oneDNN runs its AVX-512 kernels: with its batch split over the kernel
// threads (Note [oneDNN on the kernel threads]), forward + backward on an AVX-512 Xeon took
// 5.9 (conv1) and 6.1 ms (the stem) with it against 6.8 and 9.2 with the kernels here; limited
// to AVX2 (ONEDNN_MAX_CPU_ISA=AVX2), 8.9 and 14.0 ms against 6.9 and 9.8.
constexpr std::int64_t kOneDnnMinChannels = 4;

namespace {

// `op` on oneDNN (Note [Convolution on oneDNN]) where it takes it; false, nothing written,
// where it declines (the caller then runs the kernels above).
bool on_onednn(Conv2dOp op, const Conv2dArgs& args, DType t, const void* a, const void* b,
               void* out, const void* bias = nullptr) {
  if (args.c / args.groups < kOneDnnMinChannels &&
      (op == Conv2dOp::backward_input || (op == Conv2dOp::backward_weight && !onednn_avx512())))
    return false;
  return onednn_conv2d(op, args, t, a, b, out, kernel_threads(), bias);
}

// The im2col kernels of `op` (forward, backward_input, backward_weight) in T.
template <class T>
void im2col_kernel(Conv2dOp op, const Conv2dArgs& args, const T* a, const T* b, T* out) {
  const Geometry g = geometry_of(args);
  switch (op) {
    case Conv2dOp::forward:
      return forward(g, a, b, out);
    case Conv2dOp::backward_input:
      return backward_input(g, a, b, out);
    case Conv2dOp::backward_weight:
      return backward_weight(g, a, b, out);
    case Conv2dOp::forward_bias:  // four operands: conv2d_bias
      throw InternalError("cpu conv2d: conv2d_bias runs Conv2dOp::forward_bias");
  }
}

// out[p * plane + i] += bias[p % o] for every output plane p of [n, o, plane].
template <class T>
void add_bias(const Conv2dArgs& args, const T* bias, T* out) {
  const std::int64_t plane = args.oh * args.ow;
  parallel_each(args.n * args.o, [&](std::int64_t p) {
    const T v = bias[p % args.o];
    T* row = out + p * plane;
    for (std::int64_t i = 0; i < plane; ++i) row[i] += v;
  });
}

// float32 `op` (with its bias where `bias` is given): oneDNN, else the im2col kernels.
void conv2d_float32(Conv2dOp op, const Conv2dArgs& args, const float* a, const float* b, float* out,
                    const float* bias = nullptr) {
  if (on_onednn(bias ? Conv2dOp::forward_bias : op, args, DType::float32, a, b, out, bias)) return;
  if (bias) {
    if (!on_onednn(Conv2dOp::forward, args, DType::float32, a, b, out))
      im2col_kernel(Conv2dOp::forward, args, a, b, out);
    return add_bias(args, bias, out);
  }
  im2col_kernel(op, args, a, b, out);
}

// n elements of a 16-bit dtype `t` widened to float32 (exactly), in a new block.
std::unique_ptr<float[]> widen(DType t, const void* in, std::int64_t n) {
  auto out = std::make_unique_for_overwrite<float[]>(static_cast<std::size_t>(n));
  if (!vec::convert(t, DType::float32, in, out.get(), n))
    dispatch(t, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
        for (std::int64_t i = 0; i < n; ++i)
          out[i] = static_cast<float>(static_cast<const T*>(in)[i]);
    });
  return out;
}
// n float32 elements rounded to the 16-bit dtype `t` (nearest even, as the scalar
// conversion) into `out`.
void narrow(const float* in, DType t, void* out, std::int64_t n) {
  if (vec::convert(DType::float32, t, in, out, n)) return;
  dispatch(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      for (std::int64_t i = 0; i < n; ++i) static_cast<T*>(out)[i] = T(in[i]);
  });
}

// The first element of a dense view.
char* first_byte(const StridedView& v) {
  return data_of<char>(v) + v.offset * static_cast<std::int64_t>(element_size(v.dtype));
}

// A 16-bit `op` where oneDNN has no kernel for it (float16, a bfloat16 layer with 1-3 input
// channels, a CPU without AVX-512): in float32 and rounded once, as torch's 16-bit
// convolution (products of 16-bit values are exact in float32).
void conv2d_via_float32(Conv2dOp op, const Conv2dArgs& args, const StridedView& a,
                        const StridedView& b, const StridedView& out, const StridedView* bias) {
  const DType t = out.dtype;
  const auto fa = widen(t, first_byte(a), a.numel());
  const auto fb = widen(t, first_byte(b), b.numel());
  const auto fbias = bias ? widen(t, first_byte(*bias), bias->numel()) : std::unique_ptr<float[]>();
  auto fout = std::make_unique_for_overwrite<float[]>(static_cast<std::size_t>(out.numel()));
  conv2d_float32(op, args, fa.get(), fb.get(), fout.get(), fbias.get());
  narrow(fout.get(), t, first_byte(out), out.numel());
}

}  // namespace

void conv2d(Conv2dOp op, const Conv2dArgs& args, const StridedView& a, const StridedView& b,
            const StridedView& out) {
  switch (out.dtype) {
    case DType::float32:
      return conv2d_float32(op, args, host<float>(a), host<float>(b), host<float>(out));
    case DType::float64:
      return im2col_kernel(op, args, host<double>(a), host<double>(b), host<double>(out));
    case DType::bfloat16:
      if (on_onednn(op, args, DType::bfloat16, host<BFloat16>(a), host<BFloat16>(b),
                    host<BFloat16>(out)))
        return;
      [[fallthrough]];
    case DType::float16:
      return conv2d_via_float32(op, args, a, b, out, nullptr);
    default:
      throw NotImplementedError(
          "conv2d: the cpu kernels take float32, float64, float16 and bfloat16, not " +
          std::string(dtype_name(out.dtype)));
  }
}

void conv3d(Conv3dOp op, const Conv3dArgs& args, const StridedView& a, const StridedView& b,
            const StridedView& out) {
  if (out.dtype != DType::float32)
    throw NotImplementedError("conv3d: the cpu kernel takes float32, not " +
                              std::string(dtype_name(out.dtype)));
  if (!onednn_conv3d(op, args, DType::float32, host<float>(a), host<float>(b), host<float>(out),
                     kernel_threads()))
    throw NotImplementedError(std::string(op_name(op)) +
                              ": oneDNN has no primitive for this geometry on the cpu");
}

void conv2d_bias(const Conv2dArgs& args, const StridedView& input, const StridedView& weight,
                 const StridedView& bias, const StridedView& out) {
  switch (out.dtype) {
    case DType::float32:
      return conv2d_float32(Conv2dOp::forward, args, host<float>(input), host<float>(weight),
                            host<float>(out), host<float>(bias));
    case DType::float64:
      im2col_kernel(Conv2dOp::forward, args, host<double>(input), host<double>(weight),
                    host<double>(out));
      return add_bias(args, host<double>(bias), host<double>(out));
    case DType::bfloat16:
      if (on_onednn(Conv2dOp::forward_bias, args, DType::bfloat16, host<BFloat16>(input),
                    host<BFloat16>(weight), host<BFloat16>(out), host<BFloat16>(bias)))
        return;
      [[fallthrough]];
    case DType::float16:
      return conv2d_via_float32(Conv2dOp::forward, args, input, weight, out, &bias);
    default:
      throw NotImplementedError(
          "conv2d: the cpu kernels take float32, float64, float16 and bfloat16, not " +
          std::string(dtype_name(out.dtype)));
  }
}

}  // namespace hetero::cpu::kernels
