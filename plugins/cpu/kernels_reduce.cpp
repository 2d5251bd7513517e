// SPDX-License-Identifier: Apache-2.0
// Reductions; the rules are the SDK's (Note [Reduction semantics]). Three ways to walk:
// - one output (x.sum(), x.max()): the range is split over the device's kernel threads,
//   each reduces its part in order, and the parts are combined in order, so the result
//   depends only on the thread count (and for max, min and argmax not even on that: their
//   rules are order-independent);
// - outputs that are contiguous in the input (a column reduction, x.sum(0) of a row-major
//   matrix): the reduced rows are walked contiguously, each adding into a block of
//   accumulators, one block of columns per thread, instead of each output walking a
//   column with the row stride (36x slower than libtorch at 4096x4096);
// - otherwise (x.sum(1)): outputs in parallel, each reducing its range serially.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include <hetero/sdk/reduction_ops.hpp>

#include "kernels.hpp"
#include "vector_kernels.hpp"

namespace hetero::cpu::kernels {
namespace {

/// Rows shorter than this (BatchNorm's 1 to 16 pixels per channel, max_pool2d's 9-element
/// windows) are reduced in plain loops: a vector-kernel call per row costs more than its sum.
constexpr std::int64_t kShortRow = 32;

// Sum of p[i * stride] (or of its squares) for i < n, in double: eight partial sums, so
// the additions do not wait on each other and the dense case vectorises.
template <bool Square, class T>
double sum_row(const T* p, std::int64_t n, std::int64_t stride) {
  if constexpr (!Square && is_floating_storage_v<T>) {
    // Dense float rows: the vector kernel's (Note [Vector kernels]); short ones below.
    double total = 0;
    if (stride == 1 && n >= kShortRow && vec::sum(dtype_of<T>, p, n, &total)) return total;
  }
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

// The maximum (minimum when Min) of `start` and p[i * stride], i < n, and whether a NaN
// is among the p[i * stride] (the value is then meaningless). Eight independent lanes and a
// select each, which the compiler vectorises; builtin arithmetic types only.
template <bool Min, class T>
std::pair<T, bool> extreme_of(const T* p, std::int64_t n, std::int64_t stride, T start) {
  if constexpr (is_floating_storage_v<T>) {
    double best = 0;  // dense float rows: the vector kernel's (Note [Vector kernels])
    bool nan = false;
    if (stride == 1 && n > 0 &&
        vec::extreme(Min ? vec::Extreme::min : vec::Extreme::max, dtype_of<T>, p, n, &best, &nan)) {
      const T b = static_cast<T>(best);
      return {(Min ? b < start : start < b) ? b : start, nan};
    }
  } else {
    std::int64_t best = 0;  // dense integer rows (int8, uint8, int32, int64)
    if (stride == 1 && n > 0 &&
        vec::extreme_int(Min ? vec::Extreme::min : vec::Extreme::max, dtype_of<T>, p, n, &best)) {
      const T b = static_cast<T>(best);
      return {(Min ? b < start : start < b) ? b : start, false};
    }
  }
  T lane[8];
  std::uint8_t nan[8] = {};
  for (T& l : lane) l = start;
  std::int64_t i = 0;
  auto step = [](T x, T l) { return (Min ? x < l : l < x) ? x : l; };
  if (stride == 1) {
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k) {
        const T x = p[i + k];
        lane[k] = step(x, lane[k]);
        nan[k] |= static_cast<std::uint8_t>(x != x);
      }
  } else {
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k) {
        const T x = p[(i + k) * stride];
        lane[k] = step(x, lane[k]);
        nan[k] |= static_cast<std::uint8_t>(x != x);
      }
  }
  for (; i < n; ++i) {
    const T x = p[i * stride];
    lane[0] = step(x, lane[0]);
    nan[0] |= static_cast<std::uint8_t>(x != x);
  }
  T best = lane[0];
  bool any_nan = nan[0] != 0;
  for (int k = 1; k < 8; ++k) {
    best = step(lane[k], best);
    any_nan = any_nan || nan[k] != 0;
  }
  return {best, any_nan};
}

// What a reduction has seen of its range so far: the accumulator (sum, squares) or the
// extremum and its index in the range (extremum, index).
template <class T>
struct Partial {
  reduction_accumulator_t<T> acc{};
  T best{};
  std::int64_t best_index = 0;
  bool any = false;
};

struct Rule {
  ReductionOp op;
  ReductionKind kind;
  bool min;
};

// Adds the row p[i * stride], i < n, whose first element is number `index` of the range,
// to `part`. One loop per kind: no switch per element.
template <class T>
void add_row(const Rule& r, const T* p, std::int64_t n, std::int64_t stride, std::int64_t index,
             Partial<T>& part) {
  if (r.kind == ReductionKind::sum || r.kind == ReductionKind::squares) {
    if constexpr (is_floating_storage_v<T>) {
      part.acc += r.kind == ReductionKind::squares ? sum_row<true>(p, n, stride)
                                                   : sum_row<false>(p, n, stride);
    } else if (r.kind == ReductionKind::sum) {
      std::int64_t acc = part.acc, dense = 0;  // dense rows: the vector kernel's, wrapping too
      if (stride == 1 && vec::sum_int(dtype_of<T>, p, n, &dense)) {
        part.acc = wrapping_add(acc, dense);
        return;
      }
      for (std::int64_t i = 0; i < n; ++i)
        acc = wrapping_add(acc, static_cast<std::int64_t>(p[i * stride]));
      part.acc = acc;
    } else {
      for (std::int64_t i = 0; i < n; ++i) {
        const auto x = static_cast<std::int64_t>(p[i * stride]);
        part.acc = wrapping_add(part.acc, x * x);
      }
    }
    return;
  }
  // The first element seeds the extremum and is read again below (it ties with itself, and
  // ties keep the earlier index): starting the scan at p + 1 made every vector load of a
  // dense run straddle two cache lines, which doubled max() of 64 MiB (3.4 -> 1.6 ms on
  // one thread).
  std::int64_t i = 0;
  if (!part.any) {
    part.best = p[0];
    part.best_index = index;
    part.any = true;
  }
  if (reduction_is_nan(part.best)) return;  // the first NaN stays (later indices lose)
  if constexpr (std::is_arithmetic_v<T> || is_floating_storage_v<T>) {
    // The extreme value in independent lanes (vectorised; float16 and bfloat16 widened in
    // blocks by the vector kernel), then, for the index kind, the first position holding it
    // (or the first NaN).
    const auto [value, nan] = r.min ? extreme_of<true>(p, n, stride, part.best)
                                    : extreme_of<false>(p, n, stride, part.best);
    if (!nan && !(r.min ? value < part.best : part.best < value)) return;  // no change
    if (r.kind == ReductionKind::extremum && !nan) {
      part.best = value;
      part.best_index = index + i;  // an index of the row; only NaN ties compare them
      return;
    }
    for (; i < n; ++i) {
      const T x = p[i * stride];
      if (nan ? reduction_is_nan(x) : x == value) break;
    }
    part.best = p[i * stride];
    part.best_index = index + i;
    return;
  }
  T best = part.best;
  std::int64_t best_index = part.best_index;
  for (; i < n; ++i) {
    const T x = p[i * stride];
    if (reduction_is_nan(x)) {
      best = x;
      best_index = index + i;
      break;
    }
    if (r.min ? x < best : best < x) {  // later indices lose ties
      best = x;
      best_index = index + i;
    }
  }
  part.best = best;
  part.best_index = best_index;
}

// `later` (a range after `part`'s) merged into `part`.
template <class T>
void merge(const Rule& r, const Partial<T>& later, Partial<T>& part) {
  if (r.kind == ReductionKind::sum || r.kind == ReductionKind::squares) {
    if constexpr (is_floating_storage_v<T>)
      part.acc += later.acc;
    else
      part.acc = wrapping_add(part.acc, later.acc);
    return;
  }
  if (!later.any) return;
  if (!part.any ||
      extremum_replaces(later.best, later.best_index, part.best, part.best_index, r.min))
    part = later;
}

// The result of a finished range of `count` elements, written to *dst.
template <class T, class Result>
void finish(const Rule& r, const Partial<T>& part, std::int64_t count, Result* dst) {
  if (r.kind == ReductionKind::sum || r.kind == ReductionKind::squares)
    *dst = static_cast<Result>(reduction_finish(r.op, part.acc, count));
  else if (r.kind == ReductionKind::index)
    *dst = static_cast<Result>(part.best_index);
  else
    *dst = static_cast<Result>(part.best);
}

// Elements [begin, end) of the sub-space `sub` (positions in C order) into `part`.
template <class T>
void reduce_range(const Rule& r, const T* src, const StridedView& sub, std::int64_t begin,
                  std::int64_t end, Partial<T>& part) {
  std::int64_t index = begin;
  for_each_row_range(sub, begin, end, [&](std::int64_t off, std::int64_t n, std::int64_t st) {
    add_row(r, src + off, n, st, index, part);
    index += n;
  });
}

// One output: the range split over the kernel threads, parts combined in order.
template <class T, class Result>
void reduce_all(const Rule& r, const T* src, const StridedView& sub, Result* dst) {
  const std::int64_t count = sub.numel();
  ThreadPool* pool = kernel_pool();
  const std::int64_t parts =
      pool && count >= kParallelThreshold ? std::min<std::int64_t>(pool->size(), count) : 1;
  std::vector<Partial<T>> partial(static_cast<std::size_t>(parts));
  parallel_range(parts, count / parts, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t q = begin; q < end; ++q)
      reduce_range(r, src, sub, count * q / parts, count * (q + 1) / parts,
                   partial[static_cast<std::size_t>(q)]);
  });
  for (std::size_t q = 1; q < partial.size(); ++q) merge(r, partial[q], partial[0]);
  finish(r, partial[0], count, dst);
}

// Outputs j < columns, output j at dst[j * out_stride], reducing src[j + o] over the
// offsets o of the sub-space: each sub-space element adds a contiguous run of columns into
// a block of accumulators (contiguous arrays, so the adds vectorise). Blocks of columns in
// parallel.
template <class T, class Result>
void reduce_columns(const Rule& r, const T* src, const StridedView& sub, std::int64_t columns,
                    Result* dst, std::int64_t out_stride) {
  // Columns per block: as many as the threads' share (rows are then read in long runs, as
  // the memory prefetchers like; a block of 512 read 2 KiB per 16 KiB row of a 4096-wide
  // float matrix), at most kBlock (accumulators of one block: 16 KiB of double, in L1).
  constexpr std::int64_t kBlock = 2048;
  const std::int64_t threads = kernel_threads();
  const std::int64_t share = (columns + threads - 1) / threads;
  const std::int64_t block = std::clamp<std::int64_t>((share + 63) / 64 * 64, 64, kBlock);
  using Acc = reduction_accumulator_t<T>;
  const std::int64_t count = sub.numel(), blocks = (columns + block - 1) / block;
  const bool summing = r.kind == ReductionKind::sum || r.kind == ReductionKind::squares;
  const bool square = r.kind == ReductionKind::squares;
  parallel_range(blocks, count * block, [&](std::int64_t first, std::int64_t last) {
    std::array<Acc, kBlock> acc;
    std::array<T, kBlock> best;
    std::array<std::int64_t, kBlock> best_index;
    std::array<std::uint8_t, kBlock> nan;  // extremum: a NaN seen in the column
    bool exact = false;  // extremum: the NaN-propagating rule for the block's remaining rows
    for (std::int64_t b = first; b < last; ++b) {
      const std::int64_t j0 = b * block, width = std::min(block, columns - j0);
      acc.fill(Acc{});
      best_index.fill(0);
      std::int64_t index = 0;
      for_each_row<1>(
          {&sub},
          [&](auto off, std::int64_t n, auto st) {
            for (std::int64_t i = 0; i < n; ++i, ++index) {
              const T* row = src + off[0] + i * st[0] + j0;
              const T* next = i + 1 < n ? row + st[0] : nullptr;  // prefetched as row is read
              if (summing) {
                if constexpr (is_floating_storage_v<T>) {
                  if (square)
                    for (std::int64_t j = 0; j < width; ++j) {
                      const double x = static_cast<double>(row[j]);
                      acc[j] += x * x;
                    }
                  else if (!vec::accumulate(dtype_of<T>, row, acc.data(), width, next))
                    for (std::int64_t j = 0; j < width; ++j) acc[j] += static_cast<double>(row[j]);
                } else if (square || !vec::accumulate_int(dtype_of<T>, row, acc.data(), width)) {
                  for (std::int64_t j = 0; j < width; ++j) {
                    const auto x = static_cast<std::int64_t>(row[j]);
                    acc[j] = wrapping_add(acc[j], square ? x * x : x);
                  }
                }
              } else if (index == 0) {
                exact = false;
                for (std::int64_t j = 0; j < width; ++j) {
                  best[j] = row[j];
                  nan[j] = reduction_is_nan(row[j]);
                  exact = exact || nan[j];
                }
              } else if (r.kind == ReductionKind::extremum) {
                // Values only: one max per vector while no NaN (or infinity) has come, then
                // the NaN-propagating binary rule from the row that brought one on, which
                // keeps NaNs in best[j]; scalar: a select per column, NaNs noted aside.
                bool maybe_nan = false;
                if (!exact &&
                    vec::extreme_into(r.min ? vec::Extreme::min : vec::Extreme::max, dtype_of<T>,
                                      row, best.data(), width, &maybe_nan, next)) {
                  if (!maybe_nan) continue;
                  exact = true;  // redo this row by the rule (vector_kernels.hpp)
                }
                const BinaryOp pick = r.min ? BinaryOp::minimum : BinaryOp::maximum;
                if (vec::binary(pick, dtype_of<T>, row, 1, best.data(), 1, best.data(), width))
                  continue;
                for (std::int64_t j = 0; j < width; ++j) {
                  const T x = row[j];
                  nan[j] |= reduction_is_nan(x);
                  best[j] = (r.min ? x < best[j] : best[j] < x) ? x : best[j];
                }
              } else {
                // Later indices lose ties; the first NaN stays (Note [Reduction semantics]).
                for (std::int64_t j = 0; j < width; ++j) {
                  const T x = row[j], cur = best[j];
                  const bool take = !reduction_is_nan(cur) &&
                                    (reduction_is_nan(x) || (r.min ? x < cur : cur < x));
                  if (take) {
                    best[j] = x;
                    best_index[j] = index;
                  }
                }
              }
            }
          },
          /*allow_parallel=*/false);
      for (std::int64_t j = 0; j < width; ++j) {
        Partial<T> part;
        part.acc = acc[j];
        part.best = r.kind == ReductionKind::extremum && nan[j]
                        ? static_cast<T>(std::numeric_limits<float>::quiet_NaN())
                        : best[j];
        part.best_index = best_index[j];
        finish(r, part, count, dst + (j0 + j) * out_stride);
      }
    }
  });
}

// Outputs whose reduced elements are one strided row each (x.sum(-1), x.max(-1), mean over
// the trailing dimensions; `count` elements `inner` apart from the output's offset in
// `base`): the row loop directly, without for_each_row_range's set-up per output (35 ns,
// which made x.mean(2) of a [128, 512, 1] tensor 2.3 ms). Rows shorter than kShortRow
// (BatchNorm's 1 to 16 pixels per channel, max_pool2d's 9-element windows) take a plain
// loop per output instead of a vector-kernel call.
template <class T, class Result>
void reduce_rows(const Rule& r, const T* src, const StridedView& out, const StridedView& base,
                 std::int64_t count, std::int64_t inner, Result* dst) {
  const bool summing = r.kind == ReductionKind::sum || r.kind == ReductionKind::squares;
  const auto each_output = [&](auto&& row) {
    for_each_row<2>(
        {&out, &base},
        [&](auto off, std::int64_t n, auto st) {
          for (std::int64_t i = 0; i < n; ++i)
            row(src + off[1] + i * st[1], dst + off[0] + i * st[0]);
        },
        /*allow_parallel=*/true, /*work_per_element=*/std::max<std::int64_t>(count, 1));
  };
  if (count > 0 && count < kShortRow && !summing) {
    // As add_row: later indices lose ties; the first NaN stays and ends the row.
    each_output([&](const T* p, Result* d) {
      T best = p[0];
      std::int64_t at = 0;
      if (!reduction_is_nan(best))
        for (std::int64_t j = 1; j < count; ++j) {
          const T x = p[j * inner];
          if (reduction_is_nan(x)) {
            best = x;
            at = j;
            break;
          }
          if (r.min ? x < best : best < x) {
            best = x;
            at = j;
          }
        }
      *d = r.kind == ReductionKind::index ? static_cast<Result>(at) : static_cast<Result>(best);
    });
    return;
  }
  if constexpr (is_floating_storage_v<T>) {
    if (summing && count < kShortRow) {  // in double, as sum_row
      const bool square = r.kind == ReductionKind::squares;
      each_output([&](const T* p, Result* d) {
        double acc = 0;
        for (std::int64_t j = 0; j < count; ++j) {
          const double x = static_cast<double>(p[j * inner]);
          acc += square ? x * x : x;
        }
        *d = static_cast<Result>(reduction_finish(r.op, acc, count));
      });
      return;
    }
  }
  if constexpr (is_floating_storage_v<T>) {
    if (inner == 1 && count > 0 && r.kind != ReductionKind::squares) {
      // Dense float rows of kShortRow or more (a mean over ResNet's 7x7 planes, max(1) and
      // argmax(1) over rows of 64): the vector kernel reduces a block of rows per call, each
      // as it would one row (the same bits), without a dispatch and a Partial per row
      // (adaptive_avg_pool2d at ResNet-18's head: 111 -> 50 us; [262144, 64].max(1): 3.05 ->
      // 1.2 ms). An empty row has no element to start an extremum from: the path below. argmax
      // takes the first position holding the row's extremum, as add_row. A row holding a NaN is
      // redone by add_row's rule, and so is every row where the vector kernel declines (the
      // extremes of float16 and bfloat16; their sums it takes: a 16-bit convolution's bias
      // gradient, [256, 16, 100] bfloat16 summed as float32 along its rows, 138 us, against
      // 99 + 82 us for a float32 copy and its sum).
      const bool sum = r.kind == ReductionKind::sum;
      const vec::Extreme which = r.min ? vec::Extreme::min : vec::Extreme::max;
      for_each_row<2>(
          {&out, &base},
          [&](auto off, std::int64_t n, auto st) {
            constexpr std::int64_t kBlock = 256;
            double value[kBlock];
            bool nan[kBlock] = {};
            for (std::int64_t i0 = 0; i0 < n; i0 += kBlock) {
              const std::int64_t m = std::min(kBlock, n - i0);
              const T* p = src + off[1] + i0 * st[1];
              Result* d = dst + off[0] + i0 * st[0];
              const bool done =
                  sum ? vec::sum_rows(dtype_of<T>, p, m, count, st[1], value)
                      : vec::extreme_rows(which, dtype_of<T>, p, m, count, st[1], value, nan);
              if (done && (r.op == ReductionOp::sum || r.op == ReductionOp::mean)) {
                // sum's finish is acc and mean's acc / count (op_table.hpp): dividing by 1 is
                // exact, so one loop without the op's switch per row gives both the same bits.
                const double divisor = r.op == ReductionOp::mean ? static_cast<double>(count) : 1.0;
                for (std::int64_t i = 0; i < m; ++i)
                  d[i * st[0]] = static_cast<Result>(value[i] / divisor);
                continue;
              }
              for (std::int64_t i = 0; i < m; ++i) {
                if (!done || nan[i]) {
                  Partial<T> part;
                  add_row(r, p + i * st[1], count, 1, 0, part);
                  finish(r, part, count, d + i * st[0]);
                } else if (sum) {
                  d[i * st[0]] = static_cast<Result>(reduction_finish(r.op, value[i], count));
                } else if (r.kind == ReductionKind::index) {
                  const T best = static_cast<T>(value[i]), *row = p + i * st[1];
                  std::int64_t at = 0;
                  while (row[at] != best) ++at;  // found: best is one of the row's elements
                  d[i * st[0]] = static_cast<Result>(at);
                } else {
                  d[i * st[0]] = static_cast<Result>(static_cast<T>(value[i]));
                }
              }
            }
          },
          /*allow_parallel=*/true, /*work_per_element=*/count);
      return;
    }
  }
  each_output([&](const T* p, Result* d) {
    Partial<T> part;
    if (count > 0) add_row(r, p, count, inner, 0, part);
    finish(r, part, count, d);
  });
}

template <class T, class Result>
void reduce_to(const Rule& r, const T* src, const StridedView& in, const StridedView& out,
               Result* dst) {
  const auto [base, sub] = reduction_views(in, out);
  const std::int64_t count = sub.numel();
  if (out.numel() == 1) {
    StridedView whole = sub;
    whole.offset = base.offset;
    return reduce_all(r, src, whole, dst + out.offset);
  }
  const LoopShape<2> outputs = make_loop<2>({&out, &base});
  if (outputs.ndim == 1 && outputs.strides[1][0] == 1 && count > 1) {
    StridedView rows = sub;  // offsets of the reduced elements, from the first output's start
    rows.offset = 0;
    return reduce_columns(r, src + base.offset, rows, outputs.shape[0], dst + out.offset,
                          outputs.strides[0][0]);
  }
  const LoopShape<1> reduced = make_loop<1>({&sub});
  if (reduced.ndim == 1) return reduce_rows(r, src, out, base, count, reduced.strides[0][0], dst);
  for_each_row<2>(
      {&out, &base},
      [&](auto off, std::int64_t n, auto st) {
        for (std::int64_t i = 0; i < n; ++i) {
          StridedView v = sub;
          v.offset = off[1] + i * st[1];
          Partial<T> part;
          reduce_range(r, src, v, 0, count, part);
          finish(r, part, count, dst + off[0] + i * st[0]);
        }
      },
      /*allow_parallel=*/true, /*work_per_element=*/count);  // each output reads `count`
}

template <class T>
void reduce_typed(ReductionOp op, const StridedView& in, const StridedView& out) {
  const Rule r{op, reduction_kind(op), min_reduction(op)};
  const T* src = data_of<T>(in);  // buffer starts: the walks add the views' offsets
  // argmax's indices, and the widening sums of integers (CpuBackend::reduces_into): int64
  if (r.kind == ReductionKind::index || (out.dtype == DType::int64 && in.dtype != DType::int64))
    return reduce_to(r, src, in, out, data_of<std::int64_t>(out));
  if constexpr (is_floating_storage_v<T> && sizeof(T) == 2) {
    // sum and mean of float16 / bfloat16 into float32 (CpuBackend::reduces_into): the
    // double accumulator rounded once, to float32
    if (out.dtype == DType::float32) return reduce_to(r, src, in, out, data_of<float>(out));
  }
  reduce_to(r, src, in, out, data_of<T>(out));
}

// Note [Float64 sums past the largest value]: float32 and 16-bit sums accumulate in double
// and cannot overflow on the way; a float64 sum accumulates in float64, and its partial sums
// may overflow where the exact sum does not: [-1.3e308, -1.3e308, 1.3e308] summed in pairs
// is -inf, exactly -1.3e308 (torch's order avoids it there and meets it elsewhere:
// [1e308, 1e308, -1e308, -1e308] is inf in torch), and beside an infinite element the
// overflow gave NaN where the sum is that infinity ([-1.3e308, -1.3e308, inf]). Each output
// of a float64 sum or mean that came out +-inf or NaN is summed again with its elements
// scaled by 2^-64 first: |x| 2^-64 < 2^960, so fewer than 2^63 finite ones cannot overflow,
// and the scaling is exact down to 2^-1010 (smaller magnitudes lose bits, at most n 2^-1010
// in all). That scaled sum is non-finite only through the elements themselves: NaN for a NaN
// element or infinities of both signs, the infinity where they have one sign, and is then
// the output as it is.
// The sum (or the mean, the scaled sum / count) is scaled back: a sum beyond float64's
// largest is inf, as torch's; a mean is finite where the exact mean is (torch's mean is its
// sum / n, inf there, but its var and std are finite: var([1.35e308] * 2) is 0 in both
// frameworks only so). Rare: only a non-finite output pays.
void resum_overflowed(ReductionOp op, const StridedView& in, const StridedView& out) {
  constexpr int kScale = 64;
  const auto [base, sub] = reduction_views(in, out);
  const std::int64_t count = sub.numel();
  const double* src = data_of<double>(in);
  double* dst = data_of<double>(out);
  for_each_row<2>(
      {&out, &base},
      [&](auto off, std::int64_t n, auto st) {
        for (std::int64_t i = 0; i < n; ++i) {
          double& d = dst[off[0] + i * st[0]];
          if (std::isfinite(d)) continue;
          StridedView v = sub;
          v.offset = off[1] + i * st[1];
          double acc = 0;
          for_each_row_range(v, 0, count, [&](std::int64_t o, std::int64_t m, std::int64_t s) {
            for (std::int64_t j = 0; j < m; ++j) acc += std::ldexp(src[o + j * s], -kScale);
          });
          d = std::isfinite(acc) ? std::ldexp(reduction_finish(op, acc, count), kScale) : acc;
        }
      },
      /*allow_parallel=*/false);
}

}  // namespace

void reduce(ReductionOp op, const StridedView& in, const StridedView& out) {
  dispatch(in.dtype, [&](auto tag) { reduce_typed<decltype(tag)>(op, in, out); });
  if (in.dtype == DType::float64 && out.dtype == DType::float64 &&
      reduction_kind(op) == ReductionKind::sum)
    resum_overflowed(op, in, out);
}

}  // namespace hetero::cpu::kernels
