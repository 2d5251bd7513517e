// SPDX-License-Identifier: Apache-2.0
// hetero::CachingAllocator (the SDK's pool, used by the cpu and opencl backends) against a
// fake device that records every allocation and release: Note [Cache limit] (the cache is
// bounded, the least recently cached blocks go first, `reserved <= allocated + limit`) and
// memory_cache_limit()'s parsing of HETERO_MEMORY_CACHE_LIMIT.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <hetero/error.hpp>
#include <hetero/sdk/caching_allocator.hpp>

namespace hetero {
namespace {

// A device whose blocks are numbered addresses; it remembers which are live.
struct FakeDevice {
  std::map<void*, std::size_t> live;
  std::vector<std::size_t> released;  // sizes, in release order
  std::uintptr_t next = 4096;
  CachingAllocator::RawMemory raw() {
    return {[this](std::size_t bytes) {
              void* p = reinterpret_cast<void*>(next);
              next += bytes;
              live[p] = bytes;
              return p;
            },
            [this](void* p, std::size_t bytes) {
              EXPECT_EQ(live.at(p), bytes) << "released with another size than allocated";
              live.erase(p);
              released.push_back(bytes);
            }};
  }
};

constexpr std::size_t kKiB = 1024, kMiB = 1024 * kKiB;

TEST(CachingAllocator, GrowingSizesKeepTheCacheWithinItsLimit) {
  // One tensor at a time, 1 MiB to 64 MiB: before the limit every size stayed cached (2 GiB
  // reserved for 64 MiB live).
  FakeDevice dev;
  const std::size_t limit = 100 * kMiB;
  CachingAllocator pool(dev.raw(), /*pooling=*/true, limit);
  for (std::size_t mb = 1; mb <= 64; ++mb) {
    const CachingAllocator::Block b = pool.allocate(mb * kMiB);
    ASSERT_TRUE(b);
    pool.free(b);
    const MemoryStats s = pool.stats();
    ASSERT_LE(s.reserved, s.allocated + limit) << "after " << mb << " MiB";
    std::size_t device_bytes = 0;
    for (const auto& [p, bytes] : dev.live) device_bytes += bytes;
    ASSERT_EQ(device_bytes, s.reserved) << "reserved disagrees with what the device holds";
  }
  EXPECT_GT(pool.stats().reserved, 0u) << "nothing was cached at all";
  pool.empty_cache();
  EXPECT_EQ(pool.stats().reserved, 0u);
  EXPECT_TRUE(dev.live.empty());
}

TEST(CachingAllocator, LeastRecentlyCachedBlocksAreReleasedFirst) {
  FakeDevice dev;
  CachingAllocator pool(dev.raw(), true, 3 * kMiB);
  const auto a = pool.allocate(1 * kMiB), b = pool.allocate(1536 * kKiB),
             c = pool.allocate(1 * kMiB);
  pool.free(b);  // oldest
  pool.free(a);
  pool.free(c);  // 1.5 + 1 + 1 MiB > 3 MiB: b goes
  ASSERT_EQ(dev.released.size(), 1u);
  EXPECT_EQ(dev.released[0], b.size);
  // The two cached 1 MiB blocks still serve requests without the device.
  const std::uint64_t raw_before = pool.stats().allocation_count;
  const auto x = pool.allocate(kMiB), y = pool.allocate(kMiB);
  EXPECT_EQ(pool.stats().allocation_count, raw_before);
  EXPECT_EQ(pool.stats().pool_hits, 2u);
  pool.free(x);
  pool.free(y);
}

TEST(CachingAllocator, BlocksLargerThanTheLimitAndALimitOfZeroCacheNothing) {
  FakeDevice dev;
  CachingAllocator pool(dev.raw(), true, 4 * kMiB);
  pool.free(pool.allocate(8 * kMiB));
  EXPECT_EQ(dev.released.size(), 1u) << "a block larger than the limit was cached";
  EXPECT_EQ(pool.stats().reserved, 0u);

  FakeDevice dev0;
  CachingAllocator none(dev0.raw(), true, 0);
  for (int i = 0; i < 3; ++i) none.free(none.allocate(kKiB));
  EXPECT_EQ(dev0.released.size(), 3u);
  EXPECT_TRUE(dev0.live.empty());
  EXPECT_EQ(none.stats().pool_hits, 0u);
}

TEST(CachingAllocator, WithoutALimitEverySizeStaysCachedAsBefore) {
  FakeDevice dev;
  CachingAllocator pool(dev.raw(), true);  // no limit given: no bound (the cuda backend's rule)
  for (std::size_t mb = 1; mb <= 8; ++mb) pool.free(pool.allocate(mb * kMiB));
  EXPECT_TRUE(dev.released.empty());
  EXPECT_EQ(pool.stats().reserved, 36 * kMiB);
}

// Sets HETERO_MEMORY_CACHE_LIMIT for one test, restoring it after.
class CacheLimitVariable : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = std::getenv(kName)) saved_ = v, had_ = true;
  }
  void TearDown() override {
    if (had_)
      ::setenv(kName, saved_.c_str(), 1);
    else
      ::unsetenv(kName);
  }
  static constexpr const char* kName = "HETERO_MEMORY_CACHE_LIMIT";
  std::string saved_;
  bool had_ = false;
};

TEST_F(CacheLimitVariable, DefaultIsAnEighthOfTheDeviceAtMostOneGiB) {
  ::unsetenv(kName);
  EXPECT_EQ(memory_cache_limit(0), 1024 * kMiB);
  EXPECT_EQ(memory_cache_limit(64 * 1024 * kMiB), 1024 * kMiB);
  EXPECT_EQ(memory_cache_limit(800 * kMiB), 100 * kMiB);
}

// Issue #44 item 16: junk gets the default, as the core's warning says (it threw, and the
// cpu plugin then had no device); the units people write are read.
TEST_F(CacheLimitVariable, ByteCountsWithSuffixesAreReadAndJunkGetsTheDefault) {
  const std::pair<const char*, std::size_t> good[] = {{"0", 0},
                                                      {"4096", 4096},
                                                      {"3K", 3 * kKiB},
                                                      {"64M", 64 * kMiB},
                                                      {"2G", 2048 * kMiB},
                                                      {"64MB", 64 * kMiB},
                                                      {"64MiB", 64 * kMiB},
                                                      {"1gb", 1024 * kMiB}};
  for (const auto& [text, bytes] : good) {
    ::setenv(kName, text, 1);
    EXPECT_EQ(memory_cache_limit(kMiB), bytes) << text;
  }
  for (const char* bad :
       {"-1", "1.5G", "64TB", "G", " 5", "ten", "99999999999999999999", "18446744073709551615G"}) {
    ::setenv(kName, bad, 1);
    EXPECT_EQ(memory_cache_limit(800 * kMiB), 100 * kMiB) << bad;
  }
}

}  // namespace
}  // namespace hetero
