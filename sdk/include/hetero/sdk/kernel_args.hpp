// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file kernel_args.hpp
/// Arguments of the kernels a backend implements: strided views into buffers, op codes,
/// scalars and GEMM descriptions (the op enums are op_codes.hpp's). Plain data, no tensor types.
/// The core validates every field (devices, shapes, dtypes, bounds) before a backend sees it.
#include <array>
#include <cstdint>

#include <hetero/dtype.hpp>
#include <hetero/sdk/op_codes.hpp>

namespace hetero {

class Buffer;

/// Largest number of dimensions a view (and so a tensor) may have.
inline constexpr int kMaxDims = 8;

/// A strided window into a Buffer, in elements: element (i0, ..., in-1) lives at
/// element offset `offset + sum(ik * strides[k])` of the buffer, read as `dtype`.
/// Strides may be 0 (a broadcast dimension) and are never negative. A view with
/// ndim == 0 is a scalar (one element). Not owning.
struct StridedView {
  Buffer* buffer = nullptr;                    ///< never null when numel() > 0
  std::int64_t offset = 0;                     ///< elements from the start of the buffer
  DType dtype = DType::float32;                ///< the element type the buffer's bytes are read as
  int ndim = 0;                                ///< dimensions in use, 0 to kMaxDims
  std::array<std::int64_t, kMaxDims> shape{};  ///< elements per dimension
  std::array<std::int64_t, kMaxDims> strides{};  ///< elements between neighbours

  /// Number of elements (1 for ndim == 0, 0 if any dimension is 0).
  std::int64_t numel() const noexcept {
    std::int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= shape[d];
    return n;
  }
  /// Element offset in the buffer of the i-th element in C order (0 <= i < numel()): a
  /// division per dimension, for reference loops (the template backend), not fast paths.
  std::int64_t element_offset(std::int64_t i) const noexcept {
    std::int64_t off = offset;
    for (int d = ndim - 1; d >= 0; --d) {
      off += (i % shape[d]) * strides[d];
      i /= shape[d];
    }
    return off;
  }
  /// True when the elements are dense in C (row-major) order.
  bool is_contiguous() const noexcept {
    std::int64_t expected = 1;
    for (int d = ndim - 1; d >= 0; --d) {
      if (shape[d] != 1 && strides[d] != expected) return false;
      expected *= shape[d];
    }
    return true;
  }
};

/// A scalar for fill(): the backend reads `f` for floating dtypes and `i` for integer
/// and bool dtypes. The core fills both consistently.
struct Scalar {
  double f = 0.0;      ///< the value for floating dtypes
  std::int64_t i = 0;  ///< the value for integer dtypes and bool (0 or 1)
};

/// The two views a reduction kernel walks (for any backend): `in` seen with out's shape
/// (one element per output, at the start of its range), and in's reduced dimensions
/// only, from element offset 0 (the sub-space each output reduces, in C order).
struct ReductionViews {
  StridedView starts;    ///< in with out's shape: each output's first input element
  StridedView subspace;  ///< in's reduced dimensions only, from offset 0
};
/// The ReductionViews of reducing `in` into `out` (out's shape is in's with 1 for each
/// reduced dimension; the core checked both).
inline ReductionViews reduction_views(const StridedView& in, const StridedView& out) {
  ReductionViews r{in, in};
  for (int d = 0; d < in.ndim; ++d) r.starts.shape[d] = out.shape[d];
  r.subspace.ndim = 0;
  r.subspace.offset = 0;
  for (int d = 0; d < in.ndim; ++d)
    if (out.shape[d] == 1 && in.shape[d] != 1) {
      r.subspace.shape[r.subspace.ndim] = in.shape[d];
      r.subspace.strides[r.subspace.ndim] = in.strides[d];
      ++r.subspace.ndim;
    }
  return r;
}

/// What a gather kernel walks (Backend::gather): `start`, the source seen with out's shape
/// and stride 0 along dim (element p of it is where p's line of src begins), and the source's
/// stride along dim; element p of out is then src[start(p) + index[p] * dim_stride]. out,
/// index and start have one shape, so they merge and split over threads as any
/// element-wise loop.
struct GatherViews {
  StridedView start;            ///< src with out's shape and stride 0 along dim
  std::int64_t dim_stride = 0;  ///< src's stride along dim, in elements
};
/// The GatherViews of gathering `src` into `out` along `dim` (the core checked the shapes).
inline GatherViews gather_views(const StridedView& src, const StridedView& out, int dim) {
  GatherViews g{src, src.strides[dim]};
  g.start.shape[dim] = out.shape[dim];
  g.start.strides[dim] = 0;
  return g;
}

/// What a scatter_add kernel walks (Backend::scatter_add): one fiber per position of the
/// dimensions other than dim. `out`, `index` and `src` are the three views with extent 1
/// along dim (their shared shape is the fiber space: element f of each is where fiber f
/// starts); along a fiber, position i reads index[index_off + i * index_stride] and
/// src[src_off + i * src_stride] and adds into out[out_off + index * out_stride], for i in
/// [0, length) in order. Distinct fibers write distinct elements of out.
struct ScatterFibers {
  StridedView out;                ///< where each fiber's out begins (extent 1 along dim)
  StridedView index;              ///< where each fiber's index begins
  StridedView src;                ///< where each fiber's src begins
  std::int64_t length = 0;        ///< positions per fiber (index's extent along dim)
  std::int64_t out_stride = 0;    ///< out's stride along dim, in elements
  std::int64_t index_stride = 0;  ///< index's stride along dim
  std::int64_t src_stride = 0;    ///< src's stride along dim
};
/// The ScatterFibers of scatter_add(out, dim, index, src) (the core checked the shapes).
inline ScatterFibers scatter_fibers(const StridedView& out, const StridedView& index,
                                    const StridedView& src, int dim) {
  ScatterFibers f{
      out, index, src, index.shape[dim], out.strides[dim], index.strides[dim], src.strides[dim]};
  for (StridedView* v : {&f.out, &f.index, &f.src}) {
    v->shape = index.shape;
    v->shape[dim] = 1;
    v->strides[dim] = 0;
  }
  return f;
}

/// Batched row-major GEMM: for b in [0, batch): C_b = alpha * op(A_b) * op(B_b) + beta * C_b
/// with op(A_b) of shape m x k, op(B_b) k x n, C_b m x n, all row-major, as
/// cblas_?gemm(CblasRowMajor, ...). `trans_a` means A_b is stored k x m. Leading
/// dimensions and batch strides are in elements; a batch stride may be 0 (broadcast).
/// dtype is float32, float64, float16 or bfloat16 (the 16-bit ones accumulate in float32),
/// the same for all three. m, n, k and batch are >= 1 (the core makes
/// an empty product without a GEMM: Note [Empty tensors]).
struct GemmArgs {
  DType dtype = DType::float32;  ///< of A, B and C
  bool trans_a = false;          ///< A_b is stored k x m (op(A_b) is its transpose)
  bool trans_b = false;          ///< B_b is stored n x k
  std::int64_t m = 0;            ///< rows of op(A_b) and C_b
  std::int64_t n = 0;            ///< columns of op(B_b) and C_b
  std::int64_t k = 0;            ///< columns of op(A_b), rows of op(B_b)
  std::int64_t batch = 1;        ///< number of products
  double alpha = 1.0;            ///< the product's scale
  double beta = 0.0;             ///< the scale of C_b's previous value
  Buffer* a = nullptr;           ///< A's buffer (not owned)
  std::int64_t a_offset = 0;     ///< A_0's first element, in elements from the buffer's start
  std::int64_t lda = 0;          ///< elements between A's stored rows
  std::int64_t stride_a = 0;     ///< elements from A_b to A_b+1 (0: one A for every b)
  Buffer* b = nullptr;           ///< B's buffer (not owned)
  std::int64_t b_offset = 0;     ///< B_0's first element
  std::int64_t ldb = 0;          ///< elements between B's stored rows
  std::int64_t stride_b = 0;     ///< elements from B_b to B_b+1 (0: broadcast)
  Buffer* c = nullptr;           ///< C's buffer (not owned; written)
  std::int64_t c_offset = 0;     ///< C_0's first element
  std::int64_t ldc = 0;          ///< elements between C's rows
  std::int64_t stride_c = 0;     ///< elements from C_b to C_b+1
};

/// The geometry of Backend::conv2d() (interface minor 8), in elements, as
/// torch.nn.functional.conv2d's arguments: input [n, c, h, w], weight
/// [o, c / groups, kh, kw], output [n, o, oh, ow], with
/// oh = (h + 2 ph - dh (kh - 1) - 1) / sh + 1 (ow likewise) >= 1; every size >= 1, n >= 1,
/// c and o divisible by groups; stride, dilation >= 1, padding >= 0 (zeros).
struct Conv2dArgs {
  std::int64_t n = 0;       ///< images
  std::int64_t c = 0;       ///< input channels
  std::int64_t h = 0;       ///< input height
  std::int64_t w = 0;       ///< input width
  std::int64_t o = 0;       ///< output channels
  std::int64_t groups = 1;  ///< channel groups (torch's groups)
  std::int64_t kh = 1;      ///< kernel height
  std::int64_t kw = 1;      ///< kernel width
  std::int64_t sh = 1;      ///< vertical stride
  std::int64_t sw = 1;      ///< horizontal stride
  std::int64_t ph = 0;      ///< zero rows above and below
  std::int64_t pw = 0;      ///< zero columns left and right
  std::int64_t dh = 1;      ///< vertical dilation
  std::int64_t dw = 1;      ///< horizontal dilation
  std::int64_t oh = 0;      ///< output height
  std::int64_t ow = 0;      ///< output width
};

/// The geometry of Backend::conv3d() (interface minor 16), in elements, as
/// torch.nn.functional.conv3d's arguments: input [n, c, d, h, w], weight
/// [o, c / groups, kd, kh, kw], output [n, o, od, oh, ow], with
/// od = (d + 2 pd - dd (kd - 1) - 1) / sd + 1 (oh, ow likewise) >= 1; every size >= 1, c and o
/// divisible by groups; stride, dilation >= 1, padding >= 0 (zeros). Conv2dArgs with a depth.
struct Conv3dArgs {
  std::int64_t n = 0;       ///< images (volumes)
  std::int64_t c = 0;       ///< input channels
  std::int64_t d = 0;       ///< input depth
  std::int64_t h = 0;       ///< input height
  std::int64_t w = 0;       ///< input width
  std::int64_t o = 0;       ///< output channels
  std::int64_t groups = 1;  ///< channel groups (torch's groups)
  std::int64_t kd = 1;      ///< kernel depth
  std::int64_t kh = 1;      ///< kernel height
  std::int64_t kw = 1;      ///< kernel width
  std::int64_t sd = 1;      ///< depth stride
  std::int64_t sh = 1;      ///< vertical stride
  std::int64_t sw = 1;      ///< horizontal stride
  std::int64_t pd = 0;      ///< zero frames before and after
  std::int64_t ph = 0;      ///< zero rows above and below
  std::int64_t pw = 0;      ///< zero columns left and right
  std::int64_t dd = 1;      ///< depth dilation
  std::int64_t dh = 1;      ///< vertical dilation
  std::int64_t dw = 1;      ///< horizontal dilation
  std::int64_t od = 0;      ///< output depth
  std::int64_t oh = 0;      ///< output height
  std::int64_t ow = 0;      ///< output width
};

/// The geometry of Backend::batch_norm() (interface minor 13): an input [n, c, spatial]
/// (torch's [N, C, *] with the trailing dimensions flattened; spatial = 1 for BatchNorm1d's
/// [N, C]) normalised per channel over its n * spatial >= 2 elements, as
/// torch.nn.functional.batch_norm(training=True): y = (x - mean) / sqrt(var + eps) * weight
/// + bias with the biased variance. n, c, spatial >= 1; eps >= 0.
struct BatchNormArgs {
  std::int64_t n = 0;        ///< images (torch's N)
  std::int64_t c = 0;        ///< channels (torch's C, num_features)
  std::int64_t spatial = 1;  ///< elements per image and channel (H * W; 1 for [N, C])
  double eps = 1e-5;         ///< added to the variance before the square root
};

/// The operands of Backend::batch_norm(): dense C-order views of one floating dtype on one
/// device. Views an op does not use are left empty (numel() 0).
/// - forward_training reads input, weight_bias; writes output (y) and stats;
/// - backward reads input, grad_output, weight_bias, stats; writes output (the input's
///   gradient) and grad_weight_bias.
struct BatchNormViews {
  StridedView input;        ///< x, [n, c, spatial]
  StridedView grad_output;  ///< backward: dL/dy, [n, c, spatial]
  /// [2, c]: row 0 the scale (torch's weight; ones without affine), row 1 the shift (bias).
  StridedView weight_bias;
  /// [2, c]: row 0 the batch mean, row 1 the biased batch variance (sum (x - mean)^2 / (n *
  /// spatial)), as native_batch_norm's save_mean and 1 / save_invstd^2 - eps.
  StridedView stats;
  StridedView output;            ///< forward: y; backward: dL/dx; [n, c, spatial]
  StridedView grad_weight_bias;  ///< backward: [2, c], dL/dweight and dL/dbias
};

/// The geometry of Backend::pool2d() (interface minor 13), in elements, as
/// torch.nn.functional.max_pool2d's arguments: input [n, c, h, w], output [n, c, oh, ow];
/// output (i, j)'s window starts at (i sh - ph, j sw - pw) and takes every dh-th row and
/// dw-th column of its kh x kw extent that lies inside the input (padding is -inf: never
/// taken). oh and ow are torch's (ceil_mode included), so that every window holds at least
/// one input element. Every size >= 1; 0 <= ph <= kh / 2, 0 <= pw <= kw / 2. Average
/// pooling (minor 14) has dh = dw = 1, and its padding counts as zeros.
struct Pool2dArgs {
  std::int64_t n = 0;   ///< images
  std::int64_t c = 0;   ///< channels
  std::int64_t h = 0;   ///< input height
  std::int64_t w = 0;   ///< input width
  std::int64_t kh = 1;  ///< window height (kernel_size)
  std::int64_t kw = 1;  ///< window width
  std::int64_t sh = 1;  ///< vertical stride
  std::int64_t sw = 1;  ///< horizontal stride
  std::int64_t ph = 0;  ///< padding above and below
  std::int64_t pw = 0;  ///< padding left and right
  std::int64_t dh = 1;  ///< vertical dilation
  std::int64_t dw = 1;  ///< horizontal dilation
  std::int64_t oh = 0;  ///< output height
  std::int64_t ow = 0;  ///< output width
};

/// The operands of Backend::pool2d(): dense C-order views on one device, x and y of one
/// floating dtype, indices int64.
/// - max_forward reads x and writes y (each window's maximum; NaN when the window holds one)
///   and indices (where it was, as h * w + column in its input plane, as torch's
///   return_indices: the first element of the window for a maximum of -inf; the last NaN);
/// - max_backward reads y (dL/dy) and indices, and writes x (dL/dx: every element; the sum
///   of dL/dy over the windows whose index names it);
/// - avg_forward (minor 14) reads x and divisor, and writes y: the sum of each window's
///   input elements (in row-major order, in x's dtype) divided by the window's divisor, as
///   aten's cpu avg_pool2d;
/// - avg_backward (minor 14) reads y (dL/dy) and divisor, and writes x (dL/dx: every element;
///   the sum of dL/dy / divisor over the windows that hold it).
/// The average ops leave indices empty; the max ops leave divisor empty.
struct Pool2dViews {
  StridedView x;        ///< [n, c, h, w]: the input, or its gradient (the backward ops)
  StridedView y;        ///< [n, c, oh, ow]: the output, or its gradient (the backward ops)
  StridedView indices;  ///< max: [n, c, oh, ow], int64
  /// avg (minor 14): [oh, ow], each window's divisor, in the accumulate type (float32 for
  /// float16 and bfloat16 x, x's dtype otherwise). The core applies torch's rule:
  /// divisor_override, else the window's cells within the padded input (count_include_pad)
  /// or within the input.
  StridedView divisor;
};

}  // namespace hetero
