// SPDX-License-Identifier: Apache-2.0
// Devices, properties, allocation and its failure.
#include <algorithm>
#include <array>
#include <cmath>
#include <hetero/conformance/conformance.hpp>

namespace hetero::conformance {

TEST_P(BackendTest, DevicePropertiesAreFilledIn) {
  for (int d = 0; d < backend().device_count(); ++d) {
    const auto p = backend().device_properties(d);
    EXPECT_FALSE(p.name.empty()) << "device " << d;
    EXPECT_GT(p.total_memory, 0u) << "device " << d;
    EXPECT_LE(p.free_memory, p.total_memory) << "device " << d;
    EXPECT_EQ(backend().default_stream(d).device(), d);
  }
  EXPECT_EQ(backend().name(), GetParam());
  EXPECT_TRUE(backend().unavailable_reason().empty());
}

TEST_P(BackendTest, AllocatesOddSizes) {
  for (std::size_t bytes : {1ul, 3ul, 4097ul, 1ul << 20}) {
    auto b = backend().allocate(0, bytes);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->size(), bytes);
    EXPECT_EQ(b->device(), 0);
  }
}

TEST_P(BackendTest, StatisticsCountLiveBytes) {
  const auto before = backend().memory_stats(0);
  {
    auto b = backend().allocate(0, 12345);
    const auto during = backend().memory_stats(0);
    EXPECT_GE(during.allocated, before.allocated + 12345);
    EXPECT_GE(during.peak_allocated, during.allocated);
    EXPECT_GE(during.reserved, during.allocated);
  }
  EXPECT_EQ(backend().memory_stats(0).allocated, before.allocated);
}

TEST_P(BackendTest, AllocationBeyondMemoryThrowsAndDeviceStaysUsable) {
  const auto total = backend().device_properties(0).total_memory;
  const std::size_t huge = std::size_t{1} << 52;  // 4 PiB
  ASSERT_GT(huge, total);
  try {
    backend().allocate(0, huge);
    FAIL() << "allocating 4 PiB succeeded";
  } catch (const OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(std::to_string(huge)), std::string::npos) << msg;
  }
  auto ok = backend().allocate(0, 1024);  // still usable
  EXPECT_EQ(ok->size(), 1024u);
}

}  // namespace hetero::conformance
