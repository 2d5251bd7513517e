// SPDX-License-Identifier: Apache-2.0
// Counter-based random numbers: reproducible per (seed, offset), independent of how a
// range is split, and with the right first two moments (tolerance: 5 standard errors).
#include <cmath>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>
#include <hetero/sdk/counter_rng.hpp>

namespace hetero::conformance {

TEST_P(BackendTest, RandomIsReproducibleAndSplittable) {
  for (DType t : floating_dtypes())
    for (auto dist : {RandomDistribution::uniform, RandomDistribution::normal}) {
      if (!runs(dist, t)) continue;
      const std::int64_t n = 1000;
      DeviceArray a(backend(), 0, t, n), b(backend(), 0, t, n), c(backend(), 0, t, n);
      backend().random(dist, a.view({n}), 42, 0, stream());
      backend().random(dist, b.view({n}), 42, 0, stream());
      backend().random(dist, c.view({n}), 43, 0, stream());
      std::vector<unsigned char> ra(n * element_size(t)), rb(ra.size()), rc(ra.size());
      a.download(ra.data());
      b.download(rb.data());
      c.download(rc.data());
      const std::string name = dist == RandomDistribution::uniform ? "uniform" : "normal";
      EXPECT_THAT(unpack(t, rb), ElementsEqual(unpack(t, ra), {n}))
          << case_name(name, t, {n}) << ": seed 42, offset 0, drawn twice, must be equal";
      EXPECT_NE(ra, rc) << case_name(name, t, {n})
                        << ": seeds 42 and 43 at offset 0 gave the same numbers";
      // Splitting: elements [500, 1000) of a call at offset 0 equal a call at offset 500
      // (uniform; normal uses two counters per element, so offset 1000).
      DeviceArray half(backend(), 0, t, 500);
      backend().random(dist, half.view({500}), 42, dist == RandomDistribution::uniform ? 500 : 1000,
                       stream());
      std::vector<unsigned char> rh(500 * element_size(t));
      half.download(rh.data());
      const auto whole = unpack(t, ra);
      EXPECT_THAT(unpack(t, rh), ElementsEqual({whole.begin() + 500, whole.end()}, {500}))
          << case_name(name, t, {500}) << ": seed 42 at offset "
          << (dist == RandomDistribution::uniform ? 500 : 1000)
          << " must equal elements [500, 1000) of the draw at offset 0";
    }
}

TEST_P(BackendTest, RandomMomentsAreRight) {
  const std::int64_t n = 200003;
  for (DType t : floating_dtypes()) {
    if (!runs(RandomDistribution::uniform, t) || !runs(RandomDistribution::normal, t)) continue;
    DeviceArray u(backend(), 0, t, n), g(backend(), 0, t, n);
    backend().random(RandomDistribution::uniform, u.view({n}), 7, 0, stream());
    backend().random(RandomDistribution::normal, g.view({n}), 7, 0, stream());
    std::vector<unsigned char> ru(n * element_size(t)), rg(ru.size());
    u.download(ru.data());
    g.download(rg.data());
    const auto uv = unpack(t, ru), gv = unpack(t, rg);
    double su = 0, su2 = 0, sg = 0, sg2 = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(uv[i] >= 0.0 && uv[i] < 1.0)
          << case_name("uniform", t, {n}) << ", seed 7: element [" << i << "] = " << uv[i]
          << ", outside [0, 1)";
      su += uv[i];
      su2 += uv[i] * uv[i];
      sg += gv[i];
      sg2 += gv[i] * gv[i];
    }
    const double dn = static_cast<double>(n);
    EXPECT_NEAR(su / dn, 0.5, 5 * std::sqrt(1.0 / 12 / dn))
        << case_name("uniform", t, {n}) << ", seed 7: the mean";
    EXPECT_NEAR(su2 / dn - (su / dn) * (su / dn), 1.0 / 12, 5 * 0.075 / std::sqrt(dn))
        << case_name("uniform", t, {n}) << ", seed 7: the variance";
    EXPECT_NEAR(sg / dn, 0.0, 5 / std::sqrt(dn))
        << case_name("normal", t, {n}) << ", seed 7: the mean";
    EXPECT_NEAR(sg2 / dn, 1.0, 5 * std::sqrt(2.0 / dn))
        << case_name("normal", t, {n}) << ", seed 7: the second moment";
  }
}

}  // namespace hetero::conformance

namespace hetero::conformance {

// The stream itself: Philox4x32-10 (Random123's known-answer vector for a zero counter and
// key), and streams of different seeds that are not shifted copies of one another (the
// SplitMix-based stream before it had mix(62089090, c) == mix(0, c - 47100553222)).
TEST(CounterRng, IsPhiloxAndSeedsAreIndependent) {
  EXPECT_EQ(rng::mix(0, 0), 0xe169c58d6627e8d5ULL);
  int same = 0;
  for (std::uint64_t c = 47100553222ULL; c < 47100553222ULL + 1000; ++c)
    same += rng::mix(62089090, c) == rng::mix(0, c - 47100553222ULL);
  EXPECT_EQ(same, 0);
}

// Every backend draws the SDK's stream: uniform bit for bit (the top bits of rng::mix), normal
// within rounding of its log and cos (Box-Muller in double), for float32 and float64.
TEST_P(BackendTest, RandomIsTheSdkStream) {
  int ran = 0;
  for (DType t : {DType::float32, DType::float64})
    for (auto dist : {RandomDistribution::uniform, RandomDistribution::normal}) {
      if (!runs(dist, t)) continue;
      ++ran;
      const std::int64_t n = 257;
      const std::uint64_t seed = 0x123456789ULL, offset = 1000003;
      DeviceArray a(backend(), 0, t, n);
      backend().random(dist, a.view({n}), seed, offset, stream());
      std::vector<unsigned char> raw(static_cast<std::size_t>(n) * element_size(t));
      a.download(raw.data());
      const auto got = unpack(t, raw);
      std::vector<double> want(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        const auto u = static_cast<std::uint64_t>(i);
        want[static_cast<std::size_t>(i)] =
            dist == RandomDistribution::normal
                ? (t == DType::float32 ? static_cast<float>(rng::normal_at(seed, offset, u))
                                       : rng::normal_at(seed, offset, u))
                : (t == DType::float32
                       ? static_cast<double>(rng::uniform_at<float>(seed, offset, u))
                       : rng::uniform_at<double>(seed, offset, u));
      }
      const double tol =
          dist == RandomDistribution::uniform ? 0.0 : (t == DType::float32 ? 2e-6 : 1e-12);
      ASSERT_THAT(got, ElementsNear(want, [tol](double e) { return tol * (1 + std::abs(e)); }, {n}))
          << case_name(dist == RandomDistribution::uniform ? "uniform" : "normal", t, {n})
          << ", seed 0x123456789, offset 1000003 (the SDK's rng::"
          << (dist == RandomDistribution::uniform ? "uniform_at" : "normal_at") << ")";
    }
  if (ran == 0) GTEST_SKIP() << "backend '" << GetParam() << "' draws no random numbers";
}

}  // namespace hetero::conformance
