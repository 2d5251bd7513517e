// SPDX-License-Identifier: Apache-2.0
// Reductions against a double reference: all elements, one axis, several axes.
// Tolerance: float32 1e-5 * sqrt(n) relative to sum|x| (accumulation order differs);
// float64 1e-12 on the same scale; float16/bfloat16 (accumulated in float32 or wider)
// float32's bound plus one unit in the last place of the result; integers exact.
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>
#include <hetero/sdk/reduction_ops.hpp>

namespace hetero::conformance {

TEST_P(BackendTest, ReductionsMatchReference) {
  const ReductionOp ops[] = {ReductionOp::sum, ReductionOp::mean, ReductionOp::max,
                             ReductionOp::min, ReductionOp::norm, ReductionOp::argmax};
  // in shape [a, b, c]; reduce masks over the three axes. The last two are long enough
  // that backends split an output over several threads or blocks (and merge partials):
  // reduced sub-spaces of 20011 to 100k elements, one of them two dimensions that cannot
  // be merged ({97, 5, 89} reduced over axes 0 and 2).
  const std::vector<std::array<std::int64_t, 3>> shapes{
      {1, 1, 1}, {2, 3, 5}, {7, 1, 13}, {3, 17, 31}, {1, 4099, 1}, {3, 20011, 1}, {97, 5, 89}};
  const std::vector<std::array<bool, 3>> masks{{true, true, true},
                                               {false, false, true},
                                               {true, false, false},
                                               {false, true, false},
                                               {true, false, true}};
  for (DType t : {DType::float32, DType::float64, DType::int32, DType::int64, DType::float16,
                  DType::bfloat16, DType::uint8, DType::int8})
    for (ReductionOp op : ops) {
      if (!table_defines(op, t) || !runs(op, t)) continue;
      for (const auto& s : shapes)
        for (const auto& m : masks) {
          const std::int64_t n = s[0] * s[1] * s[2];
          const auto x = sample_values(t, n, 21);
          std::vector<std::int64_t> os{m[0] ? 1 : s[0], m[1] ? 1 : s[1], m[2] ? 1 : s[2]};
          const std::int64_t on = os[0] * os[1] * os[2];
          const DType odt = op == ReductionOp::argmax ? DType::int64 : t;
          DeviceArray in(backend(), 0, t, n, 1), out(backend(), 0, odt, on, 1);
          in.upload(pack(t, x).data());
          backend().reduce(op, in.view({s[0], s[1], s[2]}), out.view(os), stream());
          std::vector<unsigned char> raw(static_cast<std::size_t>(on) * element_size(odt));
          out.download(raw.data());
          const auto y = unpack(odt, raw);
          std::vector<double> expected, tolerances;
          for (std::int64_t i0 = 0; i0 < os[0]; ++i0)
            for (std::int64_t i1 = 0; i1 < os[1]; ++i1)
              for (std::int64_t i2 = 0; i2 < os[2]; ++i2) {
                double acc = 0, abs_acc = 0, best = 0;
                std::int64_t best_idx = 0, idx = 0, cnt = 0;
                for (std::int64_t j0 = 0; j0 < (m[0] ? s[0] : 1); ++j0)
                  for (std::int64_t j1 = 0; j1 < (m[1] ? s[1] : 1); ++j1)
                    for (std::int64_t j2 = 0; j2 < (m[2] ? s[2] : 1); ++j2, ++idx) {
                      const std::int64_t a = m[0] ? j0 : i0, b = m[1] ? j1 : i1, c = m[2] ? j2 : i2;
                      const double v = x[(a * s[1] + b) * s[2] + c];
                      acc += op == ReductionOp::norm ? v * v : v;
                      abs_acc += op == ReductionOp::norm ? v * v : std::abs(v);
                      // The SDK's rule (Note [Reduction semantics]), on doubles.
                      if (cnt == 0 ||
                          extremum_replaces(v, idx, best, best_idx, op == ReductionOp::min)) {
                        best = v;
                        best_idx = idx;
                      }
                      ++cnt;
                    }
                double e = 0;
                switch (op) {
                  case ReductionOp::sum:
                    e = acc;
                    break;
                  case ReductionOp::mean:
                    e = acc / static_cast<double>(cnt);
                    abs_acc /= static_cast<double>(cnt);
                    break;
                  case ReductionOp::norm:
                    e = std::sqrt(acc);
                    abs_acc = e;
                    break;
                  case ReductionOp::max:
                  case ReductionOp::min:
                    e = best;
                    break;
                  case ReductionOp::argmax:
                    e = static_cast<double>(best_idx);
                    break;
                }
                // An integer sum accumulates in int64 and is stored as t: a uint8 or int8
                // sum wraps (the core widens to int64 before torch-visible sums).
                if (!is_floating_point(t) && op != ReductionOp::argmax) e = round_to(t, e);
                const double scale = 1e-5 * std::sqrt(static_cast<double>(cnt));
                const bool half = t == DType::float16 || t == DType::bfloat16;
                const double t_ol = t == DType::float32   ? scale * abs_acc + 1e-6
                                    : t == DType::float64 ? 1e-12 * abs_acc + 1e-12
                                    : half ? scale * abs_acc + epsilon(t) * std::abs(e) + 1e-6
                                           : 0;
                expected.push_back(e);
                tolerances.push_back(op == ReductionOp::argmax ? 0 : t_ol);
              }
          ASSERT_THAT(y, ElementsNear(expected, tolerances, os))
              << case_name(op_name(op), t, {s[0], s[1], s[2]}) << ", over dims "
              << (m[0] ? "0 " : "") << (m[1] ? "1 " : "") << (m[2] ? "2" : "") << " (output shape ["
              << os[0] << ", " << os[1] << ", " << os[2] << "], input: sample_values(seed 21))";
        }
    }
}

// The widening sums (Backend::reduces_into, interface minor 10), where a backend has them:
// sum of int8, uint8 and int32 into an int64 `out`, exact, on values near each dtype's ends
// so that the sums leave the input's range (int32's too), over the shapes and axes above.
TEST_P(BackendTest, WideningSumsAreExactInInt64) {
  if (!has(OptionalCapability::reduces_into)) {
    std::printf("backend '%s' predates Backend::reduces_into (interface minor %d < %d)\n",
                backend().name().c_str(), interface_minor(),
                capability_since(OptionalCapability::reduces_into));
    return;
  }
  const std::vector<std::array<std::int64_t, 3>> shapes{{1, 1, 1},    {2, 3, 5},     {3, 17, 31},
                                                        {1, 4099, 1}, {3, 20011, 1}, {97, 5, 89}};
  const std::vector<std::array<bool, 3>> masks{
      {true, true, true}, {false, false, true}, {true, false, false}, {true, false, true}};
  for (DType t : {DType::int8, DType::uint8, DType::int32}) {
    if (!runs(ReductionOp::sum, t) || !backend().reduces_into(ReductionOp::sum, t, DType::int64, 0))
      continue;
    const double top = t == DType::int32 ? 2147483647.0 : t == DType::int8 ? 127.0 : 255.0;
    for (const auto& s : shapes)
      for (const auto& m : masks) {
        const std::int64_t n = s[0] * s[1] * s[2];
        std::vector<double> x(static_cast<std::size_t>(n));
        std::uint64_t state = 29;
        for (double& v : x) {  // mostly the top of the range, some of the bottom (signed)
          state = state * 6364136223846793005ull + 1442695040888963407ull;
          const auto r = static_cast<double>(state >> 58);  // 0 .. 63
          v = t == DType::uint8 ? top - r : (r < 16 ? -top - 1 + r : top - r);
        }
        std::vector<std::int64_t> os{m[0] ? 1 : s[0], m[1] ? 1 : s[1], m[2] ? 1 : s[2]};
        const std::int64_t on = os[0] * os[1] * os[2];
        DeviceArray in(backend(), 0, t, n, 1), out(backend(), 0, DType::int64, on, 1);
        in.upload(pack(t, x).data());
        backend().reduce(ReductionOp::sum, in.view({s[0], s[1], s[2]}), out.view(os), stream());
        std::vector<double> expected(static_cast<std::size_t>(on), 0.0);
        for (std::int64_t a = 0; a < s[0]; ++a)
          for (std::int64_t b = 0; b < s[1]; ++b)
            for (std::int64_t c = 0; c < s[2]; ++c) {
              const std::int64_t o =
                  ((m[0] ? 0 : a) * os[1] + (m[1] ? 0 : b)) * os[2] + (m[2] ? 0 : c);
              expected[static_cast<std::size_t>(o)] +=
                  x[static_cast<std::size_t>((a * s[1] + b) * s[2] + c)];
            }
        ASSERT_THAT(out.values(),
                    ElementsNear(expected, std::vector<double>(expected.size(), 0.0), os))
            << case_name("sum into int64", t, {s[0], s[1], s[2]}) << ", over dims "
            << (m[0] ? "0 " : "") << (m[1] ? "1 " : "") << (m[2] ? "2" : "");
      }
  }
}

// Note [Reduction semantics] on values the random reference data never has: NaN wins
// max and min, argmax takes the first NaN, or the first of equal maxima; rows of several
// lengths so that tree reductions (and their partial blocks) meet NaNs and ties anywhere.
TEST_P(BackendTest, ExtremaFollowTheNaNAndTieRules) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DType t : {DType::float32, DType::float64, DType::float16})
    for (std::int64_t n : {6, 37, 4099, 20011}) {
      if (!runs(ReductionOp::max, t) || !runs(ReductionOp::min, t) || !runs(ReductionOp::argmax, t))
        continue;
      // Row 0: ties only (maximum 5 first at n/3, minimum -5 first at n/4).
      // Row 1: the same with NaN at 2n/3 and n - 1.
      std::vector<double> v(static_cast<std::size_t>(2 * n));
      for (std::int64_t i = 0; i < n; ++i)
        v[static_cast<std::size_t>(i)] = static_cast<double>(i % 3);
      for (std::int64_t r = 0; r < 2; ++r) {
        double* row = v.data() + r * n;
        if (r == 1) std::copy(v.begin(), v.begin() + n, row);
        row[n / 3] = row[n - 2] = 5;
        row[n / 4] = row[n - 1] = -5;
        if (r == 1) row[2 * n / 3] = row[n - 1] = nan;
      }
      DeviceArray in(backend(), 0, t, 2 * n);
      in.upload(pack(t, v).data());
      auto run = [&](ReductionOp op) {
        const DType ot = op == ReductionOp::argmax ? DType::int64 : t;
        DeviceArray out(backend(), 0, ot, 2);
        backend().reduce(op, in.view({2, n}), out.view({2, 1}), stream());
        std::vector<unsigned char> bytes(2 * element_size(ot));
        out.download(bytes.data());
        return unpack(ot, bytes);
      };
      const auto mx = run(ReductionOp::max), mn = run(ReductionOp::min),
                 am = run(ReductionOp::argmax);
      // Row 0 (ties) and row 1 (ties and NaN), each reduced over dim 1.
      const auto at = [&](const char* op, int row) {
        return case_name(op, t, {2, n}) + ", over dim 1: row " + std::to_string(row) +
               (row ? " (ties, NaN first at " + std::to_string(2 * n / 3) + ")"
                    : " (5 first at " + std::to_string(n / 3) + ", -5 first at " +
                          std::to_string(n / 4) + ")");
      };
      EXPECT_EQ(mx[0], 5.0) << at("max", 0);
      EXPECT_EQ(mn[0], -5.0) << at("min", 0);
      EXPECT_EQ(am[0], static_cast<double>(n / 3)) << at("argmax", 0);
      EXPECT_TRUE(std::isnan(mx[1])) << at("max", 1) << ": got " << mx[1] << ", expected NaN";
      EXPECT_TRUE(std::isnan(mn[1])) << at("min", 1) << ": got " << mn[1] << ", expected NaN";
      EXPECT_EQ(am[1], static_cast<double>(2 * n / 3)) << at("argmax", 1);
      // The rule the backends share, checked on the host too.
      EXPECT_TRUE(extremum_replaces(nan, 9, 5.0, 1, false));
      EXPECT_FALSE(extremum_replaces(nan, 9, nan, 1, false));
      EXPECT_FALSE(extremum_replaces(5.0, 9, 5.0, 1, false));
    }
}

}  // namespace hetero::conformance
