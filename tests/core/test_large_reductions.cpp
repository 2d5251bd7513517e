// SPDX-License-Identifier: Apache-2.0
// Reductions large enough to take the cpu backend's parallel paths (issue #26): a whole
// tensor split over the kernel threads, and column reductions walking rows into blocks of
// accumulators. Against a host reference: sums, means and norms within a relative 1e-12
// (float64) or the float32 rounding of a double sum, max/min/argmax exactly, with ties
// and NaNs placed where a thread's part or a block of columns begins or ends.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hetero/hetero.hpp>

namespace hetero {
namespace {

constexpr std::int64_t kRows = 600, kCols = 1100;  // 660k elements; 1100 columns: 3 blocks

// Values with many ties: 101 distinct values, each maximum appearing many times.
std::vector<double> values() {
  std::vector<double> v(static_cast<std::size_t>(kRows * kCols));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7919) % 101) - 50.0;
  return v;
}

double at(const std::vector<double>& v, std::int64_t r, std::int64_t c) {
  return v[static_cast<std::size_t>(r * kCols + c)];
}

// max / argmax with the NaN rule (first NaN wins) over n values of f(i).
template <class F>
std::pair<double, std::int64_t> arg_extremum(std::int64_t n, F f, bool min) {
  double best = f(0);
  std::int64_t index = 0;
  for (std::int64_t i = 1; i < n && !std::isnan(best); ++i) {
    const double x = f(i);
    if (std::isnan(x) || (min ? x < best : x > best)) best = x, index = i;
  }
  return {best, index};
}

void expect_same(double got, double want, const std::string& what) {
  if (std::isnan(want))
    EXPECT_TRUE(std::isnan(got)) << what << ": " << got;
  else
    EXPECT_EQ(got, want) << what;
}

// A sum within `tol` relative; a NaN or an infinity exactly (both NaN, or equal).
testing::AssertionResult sum_matches(double got, double want, double tol) {
  const bool same = std::isnan(want)   ? std::isnan(got)
                    : std::isinf(want) ? got == want
                                       : std::abs(got - want) <= std::abs(want) * tol + 1e-9;
  if (same) return testing::AssertionSuccess();
  return testing::AssertionFailure() << got << " vs " << want;
}

void check(const std::vector<double>& v, DType dtype, bool transposed) {
  SCOPED_TRACE(testing::Message() << dtype_name(dtype) << (transposed ? " transposed" : ""));
  Tensor x = from_vector(v, {kRows, kCols}).to(dtype);
  // The transposed case: the same matrix stored column-major, read through .t().
  if (transposed) x = x.t().contiguous().t();
  const bool floating = dtype == DType::float32 || dtype == DType::float64;
  const double tol = dtype == DType::float64 ? 1e-12 : 1e-6;
  double total = 0;
  for (double e : v) total += e;
  EXPECT_TRUE(sum_matches(x.sum().to(DType::float64).item<double>(), total, tol)) << "sum()";
  if (floating) {
    const double mean = total / static_cast<double>(v.size());
    EXPECT_TRUE(sum_matches(x.mean().to(DType::float64).item<double>(), mean, tol)) << "mean()";
  }
  for (bool min : {false, true}) {
    const auto [best, index] = arg_extremum(
        kRows * kCols, [&](std::int64_t i) { return v[static_cast<std::size_t>(i)]; }, min);
    expect_same((min ? x.min() : x.max()).to(DType::float64).item<double>(), best,
                min ? "min()" : "max()");
    if (!min) {
      EXPECT_EQ(x.argmax().item<std::int64_t>(), index) << "argmax()";
    }
  }
  // Over rows (dim 0: a column reduction) and over columns (dim 1).
  for (std::int64_t dim : {0, 1}) {
    const std::int64_t outputs = dim == 0 ? kCols : kRows, count = dim == 0 ? kRows : kCols;
    auto element = [&](std::int64_t o, std::int64_t i) {
      return dim == 0 ? at(v, i, o) : at(v, o, i);
    };
    const std::vector<double> sums = x.sum(dim).to(DType::float64).to_vector<double>();
    const std::vector<double> maxes = x.max(dim).to(DType::float64).to_vector<double>();
    const std::vector<std::int64_t> args = x.argmax(dim).to_vector<std::int64_t>();
    const std::vector<double> mins = x.min(dim).to(DType::float64).to_vector<double>();
    for (std::int64_t o = 0; o < outputs; ++o) {
      double s = 0;
      for (std::int64_t i = 0; i < count; ++i) s += element(o, i);
      ASSERT_TRUE(sum_matches(sums[static_cast<std::size_t>(o)], s, tol))
          << "sum(" << dim << ")[" << o << "]";
      const auto [mx, mi] = arg_extremum(
          count, [&](std::int64_t i) { return element(o, i); }, false);
      const auto [mn, ni] = arg_extremum(
          count, [&](std::int64_t i) { return element(o, i); }, true);
      expect_same(maxes[static_cast<std::size_t>(o)], mx, "max(dim)");
      expect_same(mins[static_cast<std::size_t>(o)], mn, "min(dim)");
      ASSERT_EQ(args[static_cast<std::size_t>(o)], mi) << "argmax(" << dim << ")[" << o << "]";
    }
  }
  if (floating && !std::isnan(total)) {
    double squares = 0;
    for (double e : v) squares += e * e;
    EXPECT_NEAR(x.norm().to(DType::float64).item<double>(), std::sqrt(squares),
                std::sqrt(squares) * tol);
  }
}

TEST(LargeReductions, MatchAHostReferenceOnEveryPath) {
  const std::vector<double> v = values();
  for (DType t : {DType::float64, DType::float32, DType::int64, DType::int32, DType::int8})
    for (bool transposed : {false, true}) check(v, t, transposed);
}

TEST(LargeReductions, NaNsAtPartAndBlockBoundariesWinWithTheFirstIndex) {
  std::vector<double> v = values();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Around the middle of the flat range (where two threads' parts meet), at the first
  // column of the second block of columns, and two in one column (the first must win).
  const std::int64_t middle = kRows * kCols / 2;
  v[static_cast<std::size_t>(middle)] = nan;
  v[static_cast<std::size_t>(middle + 3)] = nan;
  v[static_cast<std::size_t>(7 * kCols + 512)] = nan;
  v[static_cast<std::size_t>(9 * kCols + 1099)] = nan;
  v[static_cast<std::size_t>(500 * kCols + 1099)] = nan;
  for (DType t : {DType::float64, DType::float32})
    for (bool transposed : {false, true}) check(v, t, transposed);
}

// Infinities of both signs without a NaN (the column kernel's fast NaN test fires on
// them: the exact rule must then give the same extremes), and a NaN in the first row,
// which a column's running extreme starts from.
TEST(LargeReductions, InfinitiesAndAFirstRowNaNKeepTheColumnRules) {
  std::vector<double> v = values();
  const double inf = std::numeric_limits<double>::infinity();
  v[static_cast<std::size_t>(3 * kCols + 5)] = inf;
  v[static_cast<std::size_t>(4 * kCols + 6)] = -inf;
  v[static_cast<std::size_t>(599 * kCols + 1024)] = -inf;
  for (DType t : {DType::float64, DType::float32})
    for (bool transposed : {false, true}) check(v, t, transposed);
  v[static_cast<std::size_t>(600)] = std::numeric_limits<double>::quiet_NaN();  // row 0
  for (DType t : {DType::float64, DType::float32}) check(v, t, false);
}

// Short dense rows (49: a mean over ResNet's 7x7 planes) reduced along the last dimension,
// which the cpu backend does in blocks of 256 rows: 1000 rows cross the blocks and the two
// threads' halves; NaNs in the first and last rows of a block (and two in one row: the
// first wins), a row of one repeated value (argmax 0), a maximum repeated at the end.
TEST(LargeReductions, ShortRowsInBlocksMatchAHostReference) {
  constexpr std::int64_t rows = 1000, n = 49;
  std::vector<double> v(static_cast<std::size_t>(rows * n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7919) % 101) - 50.0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::int64_t r : {0, 255, 256, 511, 999}) v[static_cast<std::size_t>(r * n + r % n)] = nan;
  v[static_cast<std::size_t>(511 * n + 48)] = nan;
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(300 * n + i)] = 7.0;
  v[static_cast<std::size_t>(301 * n + 47)] = v[static_cast<std::size_t>(301 * n + 48)] = 1000.0;
  for (DType t : {DType::float64, DType::float32}) {
    SCOPED_TRACE(dtype_name(t));
    const Tensor x = from_vector(v, {rows, n}).to(t);
    const auto sums = x.sum(1).to(DType::float64).to_vector<double>();
    const auto means = x.mean(1).to(DType::float64).to_vector<double>();
    const auto maxes = x.max(1).to(DType::float64).to_vector<double>();
    const auto mins = x.min(1).to(DType::float64).to_vector<double>();
    const auto args = x.argmax(1).to_vector<std::int64_t>();
    for (std::int64_t r = 0; r < rows; ++r) {
      auto element = [&](std::int64_t i) { return v[static_cast<std::size_t>(r * n + i)]; };
      double s = 0;
      for (std::int64_t i = 0; i < n; ++i) s += element(i);
      const auto o = static_cast<std::size_t>(r);
      ASSERT_TRUE(sum_matches(sums[o], s, 0)) << "sum(1)[" << r << "]";
      ASSERT_TRUE(sum_matches(means[o], s / n, 1e-7)) << "mean(1)[" << r << "]";
      const auto [mx, mi] = arg_extremum(n, element, false);
      const auto [mn, ni] = arg_extremum(n, element, true);
      expect_same(maxes[o], mx, "max(1)[" + std::to_string(r) + "]");
      expect_same(mins[o], mn, "min(1)[" + std::to_string(r) + "]");
      ASSERT_EQ(args[o], mi) << "argmax(1)[" << r << "]";
    }
    EXPECT_EQ(args[300], 0);
    EXPECT_EQ(args[301], 47);
    EXPECT_EQ(args[511], 511 % n);
  }
}

// float16 and bfloat16 sums and extremes, whole and per row or column (the vector kernels
// widen them in blocks), against a double reference rounded once to the dtype.
TEST(LargeReductions, SixteenBitSumsAndExtremesMatchAHostReference) {
  const std::vector<double> v = values();  // integers in [-50, 50]: exact in both dtypes
  for (DType t : {DType::bfloat16, DType::float16}) {
    SCOPED_TRACE(dtype_name(t));
    const Tensor x = from_vector(v, {kRows, kCols}).to(t);
    const double rel = t == DType::bfloat16 ? 1.0 / 256 : 1.0 / 2048;  // half an ulp, doubled
    double total = 0;
    for (double e : v) total += e;
    EXPECT_NEAR(x.sum().to(DType::float64).item<double>(), total, std::abs(total) * rel);
    for (std::int64_t dim : {0, 1}) {
      const std::int64_t outputs = dim == 0 ? kCols : kRows, count = dim == 0 ? kRows : kCols;
      const auto sums = x.sum(dim).to(DType::float64).to_vector<double>();
      const auto maxes = x.max(dim).to(DType::float64).to_vector<double>();
      for (std::int64_t o = 0; o < outputs; ++o) {
        double s = 0, m = -1e9;
        for (std::int64_t i = 0; i < count; ++i) {
          const double e = dim == 0 ? at(v, i, o) : at(v, o, i);
          s += e;
          m = std::max(m, e);
        }
        ASSERT_NEAR(sums[static_cast<std::size_t>(o)], s, std::abs(s) * rel)
            << "sum(" << dim << ")[" << o << "]";
        ASSERT_EQ(maxes[static_cast<std::size_t>(o)], m) << "max(" << dim << ")[" << o << "]";
      }
    }
  }
}

}  // namespace
}  // namespace hetero

namespace hetero {
namespace {

// torch.sum of bool, int8, uint8 and int32 gives int64. On cpu the backend sums those into
// int64 itself (Backend::reduces_into): no kernel converts the input first, and sums that
// overflow the narrow dtype (and, for int32, int32 itself) come out exact, on the one-output,
// column and row paths, at sizes past the vector blocks and the thread split.
TEST(LargeReductions, WideningSumsAreExactInt64WithoutAConvertedCopy) {
  constexpr std::int64_t R = 1031, C = 2053;
  std::vector<std::int32_t> host(static_cast<std::size_t>(R * C));
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] =
        static_cast<std::int32_t>(std::int64_t{2'000'000'000} -
                                  static_cast<std::int64_t>((i * 2654435761u) % 4'000'000'001u));
  const Tensor x32 = from_vector(host, {R, C});
  for (DType dt : {DType::int32, DType::uint8, DType::int8, DType::bool_}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor x = x32.to(dt);
    // The expected values from the tensor's own elements, widened on the host.
    const std::vector<std::int64_t> v = x.to(DType::int64).to_vector<std::int64_t>();
    std::int64_t all = 0;
    std::vector<std::int64_t> cols(static_cast<std::size_t>(C)), rows(static_cast<std::size_t>(R));
    for (std::int64_t i = 0; i < R; ++i)
      for (std::int64_t j = 0; j < C; ++j) {
        const std::int64_t e = v[static_cast<std::size_t>(i * C + j)];
        all += e;
        cols[static_cast<std::size_t>(j)] += e;
        rows[static_cast<std::size_t>(i)] += e;
      }
    profiler::start();
    const Tensor total = x.sum(), by_col = x.sum(0), by_row = x.sum(1, true);
    const auto events = profiler::stop();
    EXPECT_EQ(total.dtype(), DType::int64);
    EXPECT_EQ(by_col.dtype(), DType::int64);
    EXPECT_EQ(by_row.shape(), (Shape{R, 1}));
    EXPECT_EQ(total.item<std::int64_t>(), all);
    EXPECT_EQ(by_col.to_vector<std::int64_t>(), cols);
    EXPECT_EQ(by_row.to_vector<std::int64_t>(), rows);
    for (const profiler::Event& e : events) {
      if (x.device().type() == "cpu") {
        EXPECT_FALSE(e.category == "kernel" && e.name == "cast") << "converted before the sum";
      }
    }
  }
  if (std::abs(static_cast<double>(x32.sum().item<std::int64_t>())) < 2147483648.0)
    ADD_FAILURE() << "the int32 data should overflow int32";
}

// Transposed copies large enough for the cpu backend's tiled path (issue #26 item 4),
// sizes not multiples of its 32x32 tiles, against a host transpose.
TEST(LargeCopies, TransposedCopiesAndCastsMatchAHostTranspose) {
  constexpr std::int64_t R = 1001, C = 1303;
  std::vector<float> host(static_cast<std::size_t>(R * C));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 8191) * 0.25f;
  const Tensor x = from_vector(host, {R, C});
  auto transposed_at = [&](std::int64_t i, std::int64_t j) {  // x.t()[i][j]
    return host[static_cast<std::size_t>(j * C + i)];
  };
  const std::vector<float> t = x.t().contiguous().to_vector<float>();
  const std::vector<double> h = x.t().to(DType::float64).to_vector<double>();
  Tensor into = empty({R, C});
  into.t().copy_(x.t().contiguous());  // a copy into a transposed view: into == x again
  const std::vector<float> back = into.to_vector<float>();
  for (std::int64_t i = 0; i < C; ++i)
    for (std::int64_t j = 0; j < R; ++j) {
      const auto k = static_cast<std::size_t>(i * R + j);
      ASSERT_EQ(t[k], transposed_at(i, j)) << i << "," << j;
      ASSERT_EQ(h[k], static_cast<double>(transposed_at(i, j))) << i << "," << j;
    }
  ASSERT_EQ(back, host);
  // Every dtype: a transposed copy moves each element's bits (8 x 8 register blocks for 2-,
  // 4- and 8-byte dtypes, 1001 x 1303 leaving edges of 1 and 7 on both sides; element by
  // element for 1-byte ones).
  for (DType dt : {DType::float64, DType::int64, DType::int32, DType::float16, DType::bfloat16,
                   DType::uint8, DType::int8, DType::bool_}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor xd = x.to(dt);
    const std::vector<double> src = xd.to(DType::float64).to_vector<double>();
    const std::vector<double> got = xd.t().contiguous().to(DType::float64).to_vector<double>();
    for (std::int64_t i = 0; i < C; ++i)
      for (std::int64_t j = 0; j < R; ++j)
        ASSERT_EQ(got[static_cast<std::size_t>(i * R + j)],
                  src[static_cast<std::size_t>(j * C + i)])
            << i << "," << j;
  }
  // Three dimensions: the two inner ones swapped in each of 3 matrices of 101 x 133.
  constexpr std::int64_t B = 3, M = 101, N = 133;
  const std::vector<float> part(host.begin(), host.begin() + B * M * N);
  const std::vector<float> swapped =
      from_vector(part, {B, M, N}).transpose(1, 2).contiguous().to_vector<float>();
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t m = 0; m < M; ++m)
        ASSERT_EQ(swapped[static_cast<std::size_t>((b * N + n) * M + m)],
                  part[static_cast<std::size_t>((b * M + m) * N + n)])
            << b << "," << n << "," << m;
}

// Transposed copies larger than the caches (cpu: bands written with non-temporal stores,
// vector_transpose.hpp, where the result exceeds half the last-level cache; 32 MiB of
// float32 and 16 MiB of float16 here), sizes leaving a part band and part tiles, and a copy
// into a transposed view whose rows do not start on a vector boundary.
TEST(LargeCopies, TransposesLargerThanTheCachesMatchAHostTranspose) {
  constexpr std::int64_t R = 2056, C = 4103;  // part bands of 8 columns, part tiles of 7 rows
  std::vector<float> host(static_cast<std::size_t>(R * C));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 65521);
  const Tensor x = from_vector(host, {R, C});
  for (DType dt : {DType::float32, DType::float16, DType::float64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor xd = x.to(dt);
    const std::vector<double> got = xd.t().contiguous().to(DType::float64).to_vector<double>();
    const std::vector<double> src = xd.to(DType::float64).to_vector<double>();
    for (std::int64_t i = 0; i < C; ++i)
      for (std::int64_t j = 0; j < R; ++j)
        ASSERT_EQ(got[static_cast<std::size_t>(i * R + j)],
                  src[static_cast<std::size_t>(j * C + i)])
            << i << "," << j;
  }
  Tensor wide = zeros({C, R + 1});  // rows of 2057 floats: misaligned from the second on
  wide.narrow(1, 0, R).copy_(x.t());
  const std::vector<float> w = wide.to_vector<float>();
  for (std::int64_t i = 0; i < C; ++i) {
    for (std::int64_t j = 0; j < R; ++j)
      ASSERT_EQ(w[static_cast<std::size_t>(i * (R + 1) + j)],
                host[static_cast<std::size_t>(j * C + i)])
          << i << "," << j;
    ASSERT_EQ(w[static_cast<std::size_t>(i * (R + 1) + R)], 0.0f) << i;  // the padding column
  }
}

}  // namespace
}  // namespace hetero
