// SPDX-License-Identifier: Apache-2.0
#pragma once
// Note [Vector kernels]: the inner loops of the cpu kernels on dense runs of elements, in
// Google Highway (libhwy-dev), compiled once per x86 target (SSE4, AVX2, AVX-512) and
// picked at run time for the CPU the plugin runs on (Highway's HWY_DYNAMIC_DISPATCH), so
// one binary uses AVX-512 where it exists and still runs on a baseline x86-64.
// exp, log, sigmoid, tanh, sin and cos come from SLEEF's 1.0-ulp functions (libsleef-dev,
// what PyTorch's cpu kernels use); Highway's own contrib/math was measured beside it and is
// up to 3 ulps off (tanh), beyond the differential test's bound (docs/bench/large_ops.md).
//
// Each entry point works on `n` elements (`n` >= 0) of arrays it does not own, returns
// true when it wrote them, and false, without writing, where no vector path exists (that
// op or dtype, or a target without the instructions): the caller then runs its scalar
// loop, which gives the same element results (the SDK's rules, Note [Element-wise
// semantics]; the transcendental functions within 1 ulp of libm's). Thread-safe: no state
// besides Highway's chosen target. Threads are the caller's business.
#include <cstddef>
#include <cstdint>

#include <hetero/dtype.hpp>
#include <hetero/sdk/op_codes.hpp>

namespace hetero::cpu::vec {

// The sources, one concern each, all compiled per target as Highway's foreach_target.h
// requires: vector_elementwise.cpp (unary, binary), vector_convert.cpp (convert,
// target_name), vector_reduce.cpp (sums, accumulations, extremes), vector_softmax.cpp
// (softmax); their shared per-target pieces are the vector_*-inl.h headers. A table row with
// no vector path runs the scalar loop; VectorKernels.TableRowsWithoutAVectorPath lists those
// rows, so that a new row that lacks one is seen.

/// Which extreme a reduction kernel computes.
enum class Extreme : std::uint8_t { min, max };

/// out[i] = op(in[i]) for i < n, in `dtype` (float32 and float64; float16 and bfloat16
/// computed in float32 and rounded once, as the scalar rule). `in` may equal `out`.
bool unary(UnaryOp op, DType dtype, const void* in, void* out, std::int64_t n);

/// out[i] = op(a[i * a_step], b[i * b_step]) for i < n, each step 0 (a broadcast scalar)
/// or 1 (dense), in `dtype` (float32 and float64; float16 and bfloat16 through float32).
bool binary(BinaryOp op, DType dtype, const void* a, int a_step, const void* b, int b_step,
            void* out, std::int64_t n);

/// out[i] = in[i] converted from `from` to `to` with the scalar conversion's rounding
/// (nearest even; bfloat16 NaN as 0x7FC0): float32 <-> float16 (where the CPU has F16C),
/// float32 <-> bfloat16, float32 <-> float64.
bool convert(DType from, DType to, const void* in, void* out, std::int64_t n);

/// Sum of in[i], i < n, of float32, float16 or bfloat16 (accumulated in float64; the
/// 16-bit dtypes widened exactly, float16 where the CPU has F16C, so that a 16-bit sum is
/// the float32 sum of the same values, bit for bit) or float64, in an order fixed for a
/// given target; false for other dtypes.
bool sum(DType dtype, const void* in, std::int64_t n, double* result);

/// out[r] = the sum of in[r * row_stride + i], i < n, for r < rows (elements, not bytes), of
/// the dtypes sum() takes: each row as sum() adds it (the same order, so the same bits), with
/// one dispatch for all rows (a mean over ResNet's 7x7 planes: 16,384 rows of 49); false for
/// other dtypes. `out` holds `rows` doubles, written by the caller's thread.
bool sum_rows(DType dtype, const void* in, std::int64_t rows, std::int64_t n,
              std::int64_t row_stride, double* out);

/// acc[j] += in[j] for j < n, in float64, `in` of float32, float64, float16 (with F16C) or
/// bfloat16 (a column reduction's rows added into their accumulators); false for other
/// dtypes. `next`, where not null, is the caller's next row (n elements of `dtype`): its
/// lines are prefetched as this row is read (Note [Prefetching a dense scan]); it is not
/// read.
bool accumulate(DType dtype, const void* in, double* acc, std::int64_t n,
                const void* next = nullptr);

/// Sum of in[i], i < n, of int8, uint8, int32 or int64, as int64 wrapping modulo 2^64 (the
/// scalar rule, wrapping_add: any order gives the same bits); false for other dtypes.
bool sum_int(DType dtype, const void* in, std::int64_t n, std::int64_t* result);

/// acc[j] += in[j] for j < n, int64 wrapping, `in` of int32 or int64 (a column reduction's
/// rows of integers); false for other dtypes.
bool accumulate_int(DType dtype, const void* in, std::int64_t* acc, std::int64_t n);

/// The minimum or maximum (`which`) of in[i], i < n (n >= 1), of int8, uint8, int32 or
/// int64, into *result; false for other dtypes (bool).
bool extreme_int(Extreme which, DType dtype, const void* in, std::int64_t n, std::int64_t* result);

/// best[j] = max(in[j], best[j]) (min for Extreme::min) for j < n, float32 or float64, `best`
/// of `dtype` too: a column reduction's row folded into its running extremes with one
/// instruction per vector. Exact wherever in[j] is not NaN: equal to the NaN-propagating
/// rule (in[j] != in[j] || in[j] > best[j]) ? in[j] : best[j], ties and a NaN already in
/// best[j] included. *maybe_nan is set true when some in[j] is NaN, and may be when one is
/// infinite (the test is a fused x * 0 per vector); best[j] is then unspecified where in[j]
/// is NaN, and the caller reapplies the exact rule
/// (binary(BinaryOp::maximum, ...)) to this row and the rest. False, writing nothing, for
/// other dtypes and on targets whose max instruction does not keep its second operand on
/// ties and NaN (x86's does). `next` as accumulate's.
bool extreme_into(Extreme which, DType dtype, const void* in, void* best, std::int64_t n,
                  bool* maybe_nan, const void* next = nullptr);

/// The minimum or maximum (`which`) of in[i], i < n (n >= 1), of float32, float64,
/// bfloat16 or float16 (where the CPU converts it: F16C) into *result, and whether any
/// in[i] is NaN into *has_nan (*result is then meaningless); false for other dtypes.
bool extreme(Extreme which, DType dtype, const void* in, std::int64_t n, double* result,
             bool* has_nan);

/// extreme() of each row in[r * row_stride + i], i < n (n >= 1), for r < rows (elements, not
/// bytes), of the dtypes extreme() takes, into out[r], and whether that row holds a NaN into
/// has_nan[r] (out[r] is then meaningless): one dispatch for all rows (max(1) over rows of 64);
/// false for other dtypes. `out` and `has_nan` hold `rows` each.
bool extreme_rows(Extreme which, DType dtype, const void* in, std::int64_t rows, std::int64_t n,
                  std::int64_t row_stride, double* out, bool* has_nan);

/// softmax or log_softmax (`op`) of one dense line of n >= 1 elements
/// of float32 or float64 (Backend::softmax's rule): the maximum, the sum of exp(x - max) in
/// float64, then the result. `in` may equal `out`. False for other dtypes, or where the
/// target has no vector exp.
bool softmax(SoftmaxOp op, DType dtype, const void* in, void* out, std::int64_t n);

/// out[j] = element `first + j` of a Backend::random() call (seed, offset), j < n, of
/// float32 or float64, `out` dense: the SDK's counter stream (<hetero/sdk/counter_rng.hpp>),
/// its Philox4x32-10 run in vector lanes. Uniform values are rng::uniform_at's bit for bit;
/// normal values rng::normal_at's Box-Muller with SLEEF's 1-ulp log and cos in float64 where
/// the target has them (within the conformance suite's rounding of libm's), else the
/// scalar's. False for other dtypes.
bool random(RandomDistribution dist, DType dtype, void* out, std::int64_t n, std::uint64_t seed,
            std::uint64_t offset, std::uint64_t first);

/// The name of the instruction set chosen for this CPU ("AVX3", "AVX2", "SSE4", ...).
const char* target_name();

}  // namespace hetero::cpu::vec
