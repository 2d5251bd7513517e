// SPDX-License-Identifier: Apache-2.0
// Devices, properties, allocation and its failure.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>

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

// Backend::adopt (interface 3.7, optional): memory the backend did not allocate, used in
// place. The "foreign" memory here is a buffer of the backend's own, so the test needs no
// vendor API: kernels through the adopted Buffer write the original's memory, and
// destroying the adopted Buffer calls the owner's release exactly once (and frees
// nothing: the original stays usable). A backend that does not adopt returns nullptr and
// must not call the release.
TEST_P(BackendTest, AdoptedMemoryIsUsedInPlaceAndReleasedOnce) {
  if (!has(OptionalCapability::adopt)) {  // not in the plugin's vtable
    std::printf("backend '%s' predates Backend::adopt (interface minor %d < %d)\n",
                backend().name().c_str(), interface_minor(),
                capability_since(OptionalCapability::adopt));
    return;
  }
  constexpr std::int64_t n = 257;
  DeviceArray original(backend(), 0, DType::float32, n);
  int released = 0;
  auto adopted = backend().adopt(0, original.buffer->handle(), original.buffer->size(),
                                 [&released] { ++released; });
  if (!adopted) {
    EXPECT_EQ(released, 0) << "a backend that does not adopt called the release";
    std::printf("backend '%s' does not adopt foreign memory (Backend::adopt is optional)\n",
                backend().name().c_str());
    return;
  }
  EXPECT_EQ(adopted->handle(), original.buffer->handle());
  EXPECT_EQ(adopted->size(), original.buffer->size());
  EXPECT_EQ(adopted->device(), 0);
  StridedView v = original.view({n});
  v.buffer = adopted.get();
  backend().fill(v, Scalar{2.5, 2}, stream());
  const auto through_original = original.values();
  EXPECT_THAT(through_original, ElementsEqual(std::vector<double>(n, 2.5), {n}))
      << case_name("fill with 2.5 through the adopted buffer", DType::float32, {n})
      << ", read through the original";
  EXPECT_EQ(released, 0);
  adopted.reset();
  EXPECT_EQ(released, 1);
  backend().fill(original.view({n}), Scalar{-1.0, -1}, stream());  // still the backend's
  EXPECT_THAT(original.values(), ElementsEqual(std::vector<double>(n, -1.0), {n}))
      << case_name("fill with -1 after the adopted buffer was released", DType::float32, {n});
}

}  // namespace hetero::conformance
