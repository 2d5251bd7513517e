// SPDX-License-Identifier: Apache-2.0
// Counter-based random numbers: reproducible per (seed, offset), independent of how a
// range is split, and with the right first two moments (tolerance: 5 standard errors).
#include <cmath>

#include <hetero/conformance/conformance.hpp>

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
      EXPECT_EQ(ra, rb) << "same seed and offset must give the same numbers";
      EXPECT_NE(ra, rc) << "different seeds must give different numbers";
      // Splitting: elements [500, 1000) of a call at offset 0 equal a call at offset 500
      // (uniform; normal uses two counters per element, so offset 1000).
      DeviceArray half(backend(), 0, t, 500);
      backend().random(dist, half.view({500}), 42, dist == RandomDistribution::uniform ? 500 : 1000,
                       stream());
      std::vector<unsigned char> rh(500 * element_size(t));
      half.download(rh.data());
      EXPECT_TRUE(std::equal(rh.begin(), rh.end(), ra.begin() + static_cast<long>(rh.size())));
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
      ASSERT_GE(uv[i], 0.0);
      ASSERT_LT(uv[i], 1.0);
      su += uv[i];
      su2 += uv[i] * uv[i];
      sg += gv[i];
      sg2 += gv[i] * gv[i];
    }
    const double dn = static_cast<double>(n);
    EXPECT_NEAR(su / dn, 0.5, 5 * std::sqrt(1.0 / 12 / dn));
    EXPECT_NEAR(su2 / dn - (su / dn) * (su / dn), 1.0 / 12, 5 * 0.075 / std::sqrt(dn));
    EXPECT_NEAR(sg / dn, 0.0, 5 / std::sqrt(dn));
    EXPECT_NEAR(sg2 / dn, 1.0, 5 * std::sqrt(2.0 / dn));
  }
}

}  // namespace hetero::conformance
