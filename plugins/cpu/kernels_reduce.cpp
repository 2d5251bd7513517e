// Reductions: outer loop over output elements (parallel), inner serial loop over the
// reduced sub-space; the rules are the SDK's (Note [Reduction semantics]).
#include <cmath>
#include <limits>
#include <type_traits>

#include <hetero/sdk/reduction_ops.hpp>

#include "kernels.hpp"

namespace hetero::cpu::kernels {
namespace {

// Sum of p[i * stride] (or of its squares) for i < n, in double: eight partial sums, so
// the additions do not wait on each other and the dense case vectorises.
template <bool Square, class T>
double sum_row(const T* p, std::int64_t n, std::int64_t stride) {
  double part[8] = {};
  std::int64_t i = 0;
  auto term = [](T v) {
    const double x = static_cast<double>(v);
    return Square ? x * x : x;
  };
  if (stride == 1) {
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k) part[k] += term(p[i + k]);
  } else {
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k) part[k] += term(p[(i + k) * stride]);
  }
  for (; i < n; ++i) part[0] += term(p[i * stride]);
  return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

template <class T>
void reduce_typed(ReduceOp op, const StridedView& in, const StridedView& out) {
  using Acc = reduction_accumulator_t<T>;  // Note [Reduction semantics]
  const T* src = data_of<T>(in);
  const auto [base, sub] = reduction_views(in, out);
  const std::int64_t count = sub.numel();
  const ReductionKind kind = reduction_kind(op);
  const bool summing = kind == ReductionKind::sum || kind == ReductionKind::squares;
  const bool min = min_reduction(op);
  auto reduce_one = [&](std::int64_t start, auto& result) {
    using Result = std::remove_reference_t<decltype(result)>;
    StridedView v = sub;
    v.offset = start;
    Acc acc{};
    std::int64_t best_index = 0, index = 0;
    T best{};
    bool first = true;
    if constexpr (is_floating_storage_v<T>) {
      if (summing)
        for_each_row<1>(
            {&v},
            [&](auto off, std::int64_t n, auto st) {
              acc += kind == ReductionKind::squares ? sum_row<true>(src + off[0], n, st[0])
                                                    : sum_row<false>(src + off[0], n, st[0]);
            },
            /*allow_parallel=*/false);
    }
    if (!summing || !is_floating_storage_v<T>)
      for_each_row<1>(
          {&v},
          [&](auto off, std::int64_t n, auto st) {
            const T* p = src + off[0];
            for (std::int64_t i = 0; i < n; ++i, ++index) {
              const T x = p[i * st[0]];
              if (kind == ReductionKind::sum) {
                if constexpr (is_floating_storage_v<T>)
                  acc += static_cast<Acc>(x);
                else
                  acc = wrapping_add(acc, static_cast<std::int64_t>(x));
              } else if (kind == ReductionKind::squares) {
                acc += static_cast<Acc>(x) * static_cast<Acc>(x);
              } else if (first || extremum_replaces(x, index, best, best_index, min)) {
                best = x;
                best_index = index;
              }
              first = false;
            }
          },
          /*allow_parallel=*/false);
    if (summing)
      result = static_cast<Result>(reduction_finish(op, acc, count));
    else if (kind == ReductionKind::index)
      result = static_cast<Result>(best_index);
    else
      result = static_cast<Result>(best);
  };
  if (kind == ReductionKind::index) {
    std::int64_t* dst = data_of<std::int64_t>(out);
    for_each_row<2>({&out, &base}, [&](auto off, std::int64_t n, auto st) {
      for (std::int64_t i = 0; i < n; ++i) reduce_one(off[1] + i * st[1], dst[off[0] + i * st[0]]);
    });
  } else {
    T* dst = data_of<T>(out);
    for_each_row<2>({&out, &base}, [&](auto off, std::int64_t n, auto st) {
      for (std::int64_t i = 0; i < n; ++i) reduce_one(off[1] + i * st[1], dst[off[0] + i * st[0]]);
    });
  }
}

}  // namespace

void reduce(ReduceOp op, const StridedView& in, const StridedView& out) {
  dispatch(in.dtype, [&](auto tag) { reduce_typed<decltype(tag)>(op, in, out); });
}

}  // namespace hetero::cpu::kernels
