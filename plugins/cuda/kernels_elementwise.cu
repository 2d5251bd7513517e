// SPDX-License-Identifier: Apache-2.0
// fill, convert (cast, also the strided copy), unary and binary kernels. When every view is
// contiguous: launch_map (kernels.cuh), 16-byte vector loads and stores, one pack per
// thread. Otherwise one thread per output element in a grid-stride loop, offsets from
// OffsetCalc. The element rules are the SDK's, shared with every backend: Note
// [Element-wise semantics] (elementwise_ops.hpp) and element_conversion.hpp for casts.
#include <cmath>
#include <limits>

#include <hetero/internal_assert.hpp>
#include <hetero/sdk/element_conversion.hpp>
#include <hetero/sdk/elementwise_ops.hpp>

#include "kernels.cuh"
#include "kernels.hpp"

namespace hetero::cuda::kernels {
namespace {

template <class T>
__global__ void fill_kernel(T* out, OffsetCalc<1> calc, std::int64_t n, T value) {
  HETERO_GRID_STRIDE_LOOP(i, n) {
    std::int64_t off[1];
    calc.offsets(i, off);
    out[off[0]] = value;
  }
}

template <class D, class S>
__global__ void convert_kernel(const S* src, D* dst, OffsetCalc<2> calc, std::int64_t n) {
  HETERO_GRID_STRIDE_LOOP(i, n) {
    std::int64_t off[2];
    calc.offsets(i, off);
    dst[off[0]] = convert_element<D>(src[off[1]]);
  }
}

template <class T>
__global__ void unary_kernel(UnaryOp op, const T* in, T* out, OffsetCalc<2> calc, std::int64_t n) {
  HETERO_GRID_STRIDE_LOOP(i, n) {
    std::int64_t off[2];
    calc.offsets(i, off);
    out[off[0]] = unary_element(op, in[off[1]]);
  }
}

template <class T>
__global__ void binary_kernel(BinaryOp op, const T* a, const T* b, T* out, OffsetCalc<3> calc,
                              std::int64_t n) {
  HETERO_GRID_STRIDE_LOOP(i, n) {
    std::int64_t off[3];
    calc.offsets(i, off);
    out[off[0]] = binary_element(op, a[off[1]], b[off[2]]);
  }
}

template <class T>
__global__ void ternary_kernel(TernaryOp op, const T* c, const T* x, const T* y, T* out,
                               OffsetCalc<4> calc, std::int64_t n) {
  HETERO_GRID_STRIDE_LOOP(i, n) {
    std::int64_t off[4];
    calc.offsets(i, off);
    out[off[0]] = ternary_element(op, c[off[1]], x[off[2]], y[off[3]]);
  }
}

template <class T>
struct FillWith {
  T value;
  __device__ T operator()() const { return value; }
};
template <class D>
struct ConvertTo {
  template <class S>
  __device__ D operator()(S x) const {
    return convert_element<D>(x);
  }
};
struct ApplyUnary {
  UnaryOp op;
  template <class T>
  __device__ T operator()(T x) const {
    return unary_element(op, x);
  }
};
struct ApplyBinary {
  BinaryOp op;
  template <class T>
  __device__ T operator()(T x, T y) const {
    return binary_element(op, x, y);
  }
};

struct ApplyTernary {
  TernaryOp op;
  template <class T>
  __device__ T operator()(T c, T x, T y) const {
    return ternary_element(op, c, x, y);
  }
};

}  // namespace

void fill(const StridedView& out, Scalar value, cudaStream_t stream) {
  const std::int64_t n = out.numel();
  if (n == 0) return;
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T v = scalar_as<T>(value);
    if (out.is_contiguous()) {
      launch_map(stream, FillWith<T>{v}, n, element_pointer<T>(out));
      HETERO_CUDA_CHECK_LAUNCH();
      return;
    }
    const StridedView* views[1] = {&out};
    fill_kernel<T>
        <<<grid_for(n), kThreads, 0, stream>>>(data_of<T>(out), make_offset_calc(views), n, v);
    HETERO_CUDA_CHECK_LAUNCH();
  });
}

void convert(const StridedView& src, const StridedView& dst, cudaStream_t stream) {
  const std::int64_t n = dst.numel();
  if (n == 0) return;
  dispatch(src.dtype, [&](auto stag) {
    using S = decltype(stag);
    dispatch(dst.dtype, [&](auto dtag) {
      using D = decltype(dtag);
      if (src.is_contiguous() && dst.is_contiguous()) {
        launch_map(stream, ConvertTo<D>{}, n, element_pointer<D>(dst),
                   static_cast<const S*>(element_pointer<S>(src)));
        HETERO_CUDA_CHECK_LAUNCH();
        return;
      }
      const StridedView* views[2] = {&dst, &src};
      convert_kernel<D, S><<<grid_for(n), kThreads, 0, stream>>>(data_of<S>(src), data_of<D>(dst),
                                                                 make_offset_calc(views), n);
      HETERO_CUDA_CHECK_LAUNCH();
    });
  });
}

void unary(UnaryOp op, const StridedView& in, const StridedView& out, cudaStream_t stream) {
  dispatch(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    // The runtime op switch of the kernels has a case for every row; check before launching.
    HETERO_INTERNAL_ASSERT(supports_unary<T>(op), "cuda backend: unary " +
                                                      std::string(op_name(op)) + " on " +
                                                      std::string(dtype_name(in.dtype)));
    const std::int64_t n = out.numel();
    if (n == 0) return;
    if (in.is_contiguous() && out.is_contiguous()) {
      launch_map(stream, ApplyUnary{op}, n, element_pointer<T>(out),
                 static_cast<const T*>(element_pointer<T>(in)));
      HETERO_CUDA_CHECK_LAUNCH();
      return;
    }
    const StridedView* views[2] = {&out, &in};
    unary_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(op, data_of<T>(in), data_of<T>(out),
                                                          make_offset_calc(views), n);
    HETERO_CUDA_CHECK_LAUNCH();
  });
}

void binary(BinaryOp op, const StridedView& a, const StridedView& b, const StridedView& out,
            cudaStream_t stream) {
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    HETERO_INTERNAL_ASSERT(supports_binary<T>(op), "cuda backend: binary " +
                                                       std::string(op_name(op)) + " on " +
                                                       std::string(dtype_name(out.dtype)));
    const std::int64_t n = out.numel();
    if (n == 0) return;
    if (a.is_contiguous() && b.is_contiguous() && out.is_contiguous()) {
      launch_map(stream, ApplyBinary{op}, n, element_pointer<T>(out),
                 static_cast<const T*>(element_pointer<T>(a)),
                 static_cast<const T*>(element_pointer<T>(b)));
      HETERO_CUDA_CHECK_LAUNCH();
      return;
    }
    const StridedView* views[3] = {&out, &a, &b};
    binary_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
        op, data_of<T>(a), data_of<T>(b), data_of<T>(out), make_offset_calc(views), n);
    HETERO_CUDA_CHECK_LAUNCH();
  });
}

void ternary(TernaryOp op, const StridedView& c, const StridedView& x, const StridedView& y,
             const StridedView& out, cudaStream_t stream) {
  HETERO_INTERNAL_ASSERT(op_known(op),
                         "cuda backend: ternary op " + std::to_string(static_cast<int>(op)));
  const std::int64_t n = out.numel();
  if (n == 0) return;
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (c.is_contiguous() && x.is_contiguous() && y.is_contiguous() && out.is_contiguous()) {
      launch_map(stream, ApplyTernary{op}, n, element_pointer<T>(out),
                 static_cast<const T*>(element_pointer<T>(c)),
                 static_cast<const T*>(element_pointer<T>(x)),
                 static_cast<const T*>(element_pointer<T>(y)));
      HETERO_CUDA_CHECK_LAUNCH();
      return;
    }
    const StridedView* views[4] = {&out, &c, &x, &y};
    ternary_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(op, data_of<T>(c), data_of<T>(x),
                                                            data_of<T>(y), data_of<T>(out),
                                                            make_offset_calc(views), n);
    HETERO_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace hetero::cuda::kernels
