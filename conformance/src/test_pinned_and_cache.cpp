// SPDX-License-Identifier: Apache-2.0
// empty_cache() and pinned host memory (allocate_pinned_host).
#include <cstring>
#include <numeric>
#include <vector>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>

namespace hetero::conformance {

TEST_P(BackendTest, EmptyCacheKeepsLiveBuffersAndReleasesTheRest) {
  DeviceArray live(backend(), 0, DType::int32, 1000);
  std::vector<std::int32_t> values(1000);
  std::iota(values.begin(), values.end(), -500);
  live.upload(values.data());
  { auto freed = backend().allocate(0, 1 << 20); }
  stream().synchronize();
  backend().empty_cache(0);
  const auto stats = backend().memory_stats(0);
  EXPECT_GE(stats.allocated, 1000u * sizeof(std::int32_t));
  EXPECT_EQ(stats.reserved, stats.allocated) << "empty_cache() left cached bytes reserved";
  EXPECT_THAT(live.values(),
              ElementsEqual(std::vector<double>(values.begin(), values.end()), {1000}))
      << case_name("upload of -500 .. 499, then empty_cache()", DType::int32, {1000})
      << ": a live buffer lost its contents";
  auto again = backend().allocate(0, 1 << 20);  // the device still allocates
  EXPECT_EQ(again->size(), 1u << 20);
}

TEST_P(BackendTest, PinnedHostMemoryWorksWhereOfferedAndIsRefusedElsewhere) {
  if (!backend().capabilities(0).pinned_memory) {
    EXPECT_THROW(backend().allocate_pinned_host(64), DeviceUnavailableError);
    return;
  }
  constexpr std::size_t n = 1 << 18;
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<float>(i) * 0.5f;
  DeviceArray dev(backend(), 0, DType::float32, n);
  {
    auto pinned = backend().allocate_pinned_host(n * sizeof(float));
    ASSERT_NE(pinned->host_pointer(), nullptr);
    EXPECT_EQ(pinned->host_pointer(), pinned->handle());
    EXPECT_EQ(pinned->size(), n * sizeof(float));
    std::memcpy(pinned->host_pointer(), expected.data(), n * sizeof(float));
    backend().copy_host_to_device(pinned->host_pointer(), *dev.buffer, 0, n * sizeof(float),
                                  stream());
    // Freed while the copy may still be queued: the backend keeps the memory until then.
  }
  for (int round = 0; round < 4; ++round) {  // reuse of the freed block must not race
    auto other = backend().allocate_pinned_host(n * sizeof(float));
    std::memset(other->host_pointer(), 0xFF, n * sizeof(float));
  }
  EXPECT_THAT(dev.values(), ElementsEqual(std::vector<double>(expected.begin(), expected.end()),
                                          {static_cast<std::int64_t>(n)}))
      << case_name("copy from pinned host memory freed while queued", DType::float32,
                   {static_cast<std::int64_t>(n)})
      << ": the block's next owner wrote 0xFF bytes before the copy ran";
}

}  // namespace hetero::conformance
