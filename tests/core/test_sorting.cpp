// SPDX-License-Identifier: Apache-2.0
// <hetero/sorting.hpp> beyond the differential test's `shape` cases: values printed by
// python3-torch 1.13 (below), the stable order against std::stable_sort over random sizes
// that are and are not powers of two, along inner and outer dimensions and in several dtypes,
// the gradient, the edges (0-d, empty) and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

TEST(Sorting, NaNAndTiesAsTorch) {
  // torch.sort(x, stable=True) and descending, x = [3, 1, nan, 1, 3] (torch 1.13).
  const Tensor x = tensor({3.0F, 1.0F, NAN, 1.0F, 3.0F});
  const auto [v, i] = sort(x);
  EXPECT_EQ(i.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 3, 0, 4, 2}));
  const auto vs = v.to_vector<float>();
  EXPECT_EQ(std::vector<float>(vs.begin(), vs.begin() + 4), (std::vector<float>{1, 1, 3, 3}));
  EXPECT_TRUE(std::isnan(vs[4]));
  EXPECT_EQ(argsort(x, -1, true).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2, 0, 4, 1, 3}));
  // topk(x, 3): nan, 3, 3 (torch's indices of the tied 3s are 4, 0: unspecified; hetero's
  // are in index order); topk(x, 3, largest=False): 1, 1, 3 at 1, 3, 0.
  const auto [tv, ti] = topk(x, 3);
  EXPECT_TRUE(std::isnan(tv.to_vector<float>()[0]));
  EXPECT_EQ(ti.to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 0, 4}));
  const auto [sv, si] = topk(x, 3, -1, false);
  EXPECT_EQ(sv.to_vector<float>(), (std::vector<float>{1, 1, 3}));
  EXPECT_EQ(si.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 3, 0}));
}

TEST(Sorting, StableOrderOfEveryRowAgainstStdStableSort) {
  std::mt19937 rng(7);
  for (const std::int64_t n : {1, 2, 3, 5, 8, 13, 64, 100, 257}) {
    for (const DType dtype : {DType::float32, DType::int32, DType::float16, DType::bool_}) {
      SCOPED_TRACE(std::to_string(n) + " " + std::string(dtype_name(dtype)));
      const std::int64_t rows = 3;
      std::vector<double> data(static_cast<std::size_t>(rows * n));
      for (auto& d : data) d = static_cast<double>(rng() % 7) - 3;  // many ties
      const Tensor x = from_vector(data, {n, rows}).to(dtype);      // sorted along dim 0
      const Tensor host = x.to(DType::float64);
      for (const bool descending : {false, true}) {
        const auto [values, indices] = sort(x, 0, descending);
        EXPECT_EQ(values.dtype(), dtype);
        const auto got = indices.to_vector<std::int64_t>();
        const auto vals = host.to_vector<double>();
        for (std::int64_t r = 0; r < rows; ++r) {
          std::vector<std::int64_t> want(static_cast<std::size_t>(n));
          std::iota(want.begin(), want.end(), 0);
          const auto at = [&](std::int64_t i) {
            return vals[static_cast<std::size_t>(i * rows + r)];
          };
          std::stable_sort(want.begin(), want.end(), [&](std::int64_t a, std::int64_t b) {
            return descending ? at(a) > at(b) : at(a) < at(b);
          });
          for (std::int64_t i = 0; i < n; ++i)
            ASSERT_EQ(got[static_cast<std::size_t>(i * rows + r)],
                      want[static_cast<std::size_t>(i)])
                << "row " << r << " position " << i << (descending ? " descending" : "");
        }
        EXPECT_TRUE(equal(values, gather(x, 0, indices)));
      }
    }
  }
}

TEST(Sorting, GradientGoesBackToTheSortedPositions) {
  Tensor x = tensor({{0.5, -2.0, 3.0}, {1.0, 1.0, -1.0}}).to(DType::float64).requires_grad_();
  const auto [v, i] = sort(x, 1, true);
  (v * tensor({1.0, 10.0, 100.0})).sum().backward();
  // Row 0 sorted descending: 3 (pos 2), 0.5 (pos 0), -2 (pos 1); row 1: 1 (0), 1 (1), -1 (2).
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{10, 100, 1, 1, 10, 100}));
  Tensor y = tensor({4.0, 2.0, 8.0}).to(DType::float64).requires_grad_();
  std::get<0>(topk(y, 2)).sum().backward();
  EXPECT_EQ(y.grad().to_vector<double>(), (std::vector<double>{1, 0, 1}));
}

TEST(Sorting, EdgesAndErrors) {
  const auto [v0, i0] = sort(full({}, 2.5));
  EXPECT_EQ(v0.dim(), 0);
  EXPECT_EQ(i0.item<std::int64_t>(), 0);
  const auto [ve, ie] = sort(zeros({2, 0, 3}), 1);
  EXPECT_EQ(ve.shape(), (Shape{2, 0, 3}));
  EXPECT_EQ(ie.dtype(), DType::int64);
  EXPECT_EQ(std::get<0>(topk(ones({4, 5}), 0, 1)).shape(), (Shape{4, 0}));
  EXPECT_THROW(sort(ones({2, 3}), 2), IndexError);
  EXPECT_THROW(topk(ones({2, 3}), 4), IndexError);
  EXPECT_THROW(topk(ones({2, 3}), -1), IndexError);
  // A long row (not a power of 2) along the last dimension: the top 5 of a permutation.
  const Tensor p = randperm(1000).to(DType::float32);
  EXPECT_EQ(std::get<0>(topk(p, 5)).to_vector<float>(),
            (std::vector<float>{999, 998, 997, 996, 995}));
}
