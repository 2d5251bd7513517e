// SPDX-License-Identifier: Apache-2.0
// The template backend's kernels: one plain loop each, written for reading, not speed.
// The semantics every backend must give are in hetero/sdk/kernel_args.hpp and
// hetero/sdk/backend.hpp; the SDK helpers used here (dispatch_dtype, convert_element,
// scalar_as, unary_element/binary_element, reduction_views, hetero::rng) keep them
// identical across backends.
#include <cmath>
#include <limits>
#include <type_traits>

#include <hetero/internal_assert.hpp>
#include <hetero/sdk/counter_rng.hpp>
#include <hetero/sdk/dtype_dispatch.hpp>
#include <hetero/sdk/element_conversion.hpp>
#include <hetero/sdk/elementwise_ops.hpp>
#include <hetero/sdk/reduction_ops.hpp>

#include "template_backend.hpp"

namespace hetero::template_backend {
bool TemplateBackend::supports(OpRef op, DType dtype, int device) const {
  // E.g. a device without float64: `if (dtype == DType::float64) return false;`
#ifdef HETERO_TEMPLATE_WITHOUT_FLOAT64_OR_TANH
  // The test build `nofloat64` (tests/CMakeLists.txt): the conformance kit must not need
  // what a backend declines (issue #44 item 18).
  if (dtype == DType::float64 || op == OpRef(UnaryOp::tanh)) return false;
#endif
  return Backend::supports(op, dtype, device);
}

void TemplateBackend::fill(const StridedView& out, Scalar value, Stream&) {
  dispatch_dtype(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = data_of<T>(out);
    for (std::int64_t i = 0; i < out.numel(); ++i) p[out.element_offset(i)] = scalar_as<T>(value);
  });
}

void TemplateBackend::cast(const StridedView& src, const StridedView& dst, Stream&) {
  dispatch_dtype(src.dtype, [&](auto s_tag) {
    dispatch_dtype(dst.dtype, [&](auto d_tag) {
      using S = decltype(s_tag);
      using D = decltype(d_tag);
      const S* in = data_of<S>(src);
      D* out = data_of<D>(dst);
      for (std::int64_t i = 0; i < dst.numel(); ++i)
        out[dst.element_offset(i)] = convert_element<D>(in[src.element_offset(i)]);
    });
  });
}

void TemplateBackend::unary(UnaryOp op, const StridedView& in, const StridedView& out, Stream&) {
  dispatch_dtype(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = data_of<T>(in);
    T* y = data_of<T>(out);
    for (std::int64_t i = 0; i < out.numel(); ++i)
      y[out.element_offset(i)] = unary_element(op, x[in.element_offset(i)]);
  });
}

void TemplateBackend::binary(BinaryOp op, const StridedView& a, const StridedView& b,
                             const StridedView& out, Stream&) {
  dispatch_dtype(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = data_of<T>(a);
    const T* y = data_of<T>(b);
    T* z = data_of<T>(out);
    for (std::int64_t i = 0; i < out.numel(); ++i)
      z[out.element_offset(i)] = binary_element(op, x[a.element_offset(i)], y[b.element_offset(i)]);
#ifdef HETERO_TEMPLATE_BROKEN_ADD
    // The test build `brokenadd` (tests/CMakeLists.txt): a float32 add that drops its last
    // element's second operand, as an off-by-one loop would. The kit's first failure must
    // name the op, dtype, device, shape and that element (issue #47 item 2).
    if constexpr (std::is_same_v<T, float>) {
      const std::int64_t last = out.numel() - 1;
      if (op == BinaryOp::add && last >= 0) z[out.element_offset(last)] = x[a.element_offset(last)];
    }
#endif
  });
}

#if HETERO_TARGET_INTERFACE_MINOR >= 4
void TemplateBackend::ternary(TernaryOp op, const StridedView& c, const StridedView& x,
                              const StridedView& y, const StridedView& out, Stream&) {
  dispatch_dtype(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* pc = data_of<T>(c);
    const T* px = data_of<T>(x);
    const T* py = data_of<T>(y);
    T* z = data_of<T>(out);
    for (std::int64_t i = 0; i < out.numel(); ++i)
      z[out.element_offset(i)] = ternary_element(op, pc[c.element_offset(i)],
                                                 px[x.element_offset(i)], py[y.element_offset(i)]);
  });
}
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 6
void TemplateBackend::gather(const StridedView& src, const StridedView& index, int dim,
                             const StridedView& out, Stream&) {
  const GatherViews g = gather_views(src, out, dim);
  const auto* idx = data_of<std::int64_t>(index);
  dispatch_dtype(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* s = data_of<T>(src);
    T* o = data_of<T>(out);
    for (std::int64_t i = 0; i < out.numel(); ++i)
      o[out.element_offset(i)] =
          s[g.start.element_offset(i) + idx[index.element_offset(i)] * g.dim_stride];
  });
}

void TemplateBackend::scatter_add(const StridedView& out, const StridedView& index, int dim,
                                  const StridedView& src, Stream&) {
  const ScatterFibers f = scatter_fibers(out, index, src, dim);
  const auto* idx = data_of<std::int64_t>(index);
  dispatch_dtype(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* o = data_of<T>(out);
    const T* s = data_of<T>(src);
    for (std::int64_t k = 0; k < f.out.numel(); ++k) {  // one fiber at a time, in order
      const std::int64_t oo = f.out.element_offset(k), io = f.index.element_offset(k),
                         so = f.src.element_offset(k);
      for (std::int64_t i = 0; i < f.length; ++i) {
        T& target = o[oo + idx[io + i * f.index_stride] * f.out_stride];
        target = scatter_add_element(target, s[so + i * f.src_stride]);
      }
    }
  });
}
#endif

void TemplateBackend::reduce(ReductionOp op, const StridedView& in, const StridedView& out,
                             Stream&) {
  const auto [starts, subspace] = reduction_views(in, out);
  const std::int64_t count = subspace.numel();
  dispatch_dtype(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    constexpr bool floating = is_floating_storage_v<T>;
    const T* x = data_of<T>(in);
    for (std::int64_t j = 0; j < out.numel(); ++j) {
      const std::int64_t start = starts.element_offset(j);
      // Note [Reduction semantics] (<hetero/sdk/reduction_ops.hpp>).
      const ReductionKind kind = reduction_kind(op);
      double sum = 0;
      std::int64_t isum = 0;
      T best{};
      std::int64_t best_index = 0;
      for (std::int64_t i = 0; i < count; ++i) {
        const T v = x[start + subspace.element_offset(i)];
        sum += static_cast<double>(v) *
               (kind == ReductionKind::squares ? static_cast<double>(v) : 1.0);
        isum = wrapping_add(isum, static_cast<std::int64_t>(v));
        if (i == 0 || extremum_replaces(v, i, best, best_index, min_reduction(op))) {
          best = v;
          best_index = i;
        }
      }
      const std::int64_t o = out.element_offset(j);
      if (kind == ReductionKind::index) {
        data_of<std::int64_t>(out)[o] = best_index;
        continue;
      }
      T& r = data_of<T>(out)[o];
      if (kind == ReductionKind::extremum)
        r = best;
      else if (floating)
        r = static_cast<T>(reduction_finish(op, sum, count));
      else
        r = static_cast<T>(reduction_finish(op, isum, count));
    }
  });
}

void TemplateBackend::random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
                             std::uint64_t offset, Stream&) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* p = data_of<T>(out);
    for (std::int64_t i = 0; i < out.numel(); ++i) {
      const auto n = static_cast<std::uint64_t>(i);
      p[out.element_offset(i)] = dist == RandomDistribution::uniform
                                     ? rng::uniform_at<T>(seed, offset, n)
                                     : static_cast<T>(rng::normal_at(seed, offset, n));
    }
  };
  if (out.dtype == DType::float64)
    run(double{});
  else if (out.dtype == DType::float32)
    run(float{});
  else
    HETERO_INTERNAL_ASSERT(false,
                           "template backend: random() of " + std::string(dtype_name(out.dtype)));
}

void TemplateBackend::gemm(const GemmArgs& g, Stream&) {
  dispatch_dtype(g.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_floating_storage_v<T>) {
      const T* a = static_cast<const T*>(g.a->handle());
      const T* b = static_cast<const T*>(g.b->handle());
      T* c = static_cast<T*>(g.c->handle());
      for (std::int64_t batch = 0; batch < g.batch; ++batch)
        for (std::int64_t i = 0; i < g.m; ++i)
          for (std::int64_t j = 0; j < g.n; ++j) {
            double acc = 0;
            for (std::int64_t p = 0; p < g.k; ++p) {
              const T av =
                  a[g.a_offset + batch * g.stride_a + (g.trans_a ? p * g.lda + i : i * g.lda + p)];
              const T bv =
                  b[g.b_offset + batch * g.stride_b + (g.trans_b ? j * g.ldb + p : p * g.ldb + j)];
              acc += static_cast<double>(av) * static_cast<double>(bv);
            }
            T& cv = c[g.c_offset + batch * g.stride_c + i * g.ldc + j];
            // beta == 0: C is not read (as BLAS), so NaN in uninitialised C does not leak.
            cv = static_cast<T>(g.alpha * acc +
                                (g.beta == 0 ? 0.0 : g.beta * static_cast<double>(cv)));
          }
    } else {
      HETERO_INTERNAL_ASSERT(false,
                             "template backend: gemm of " + std::string(dtype_name(g.dtype)));
    }
  });
}

}  // namespace hetero::template_backend
