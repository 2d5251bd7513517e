// SPDX-License-Identifier: Apache-2.0
// Streams and events: ordering, waits, and concurrent use from several threads.
#include <algorithm>
#include <array>
#include <cmath>
#include <thread>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>

namespace hetero::conformance {

TEST_P(BackendTest, WorkRunsInQueueOrder) {
  // fill 1, fill 2, copy to host: the host sees 2 everywhere.
  DeviceArray a(backend(), 0, DType::int64, 1000);
  backend().fill(a.view({1000}), Scalar{1, 1}, stream());
  backend().fill(a.view({1000}), Scalar{2, 2}, stream());
  EXPECT_THAT(a.values(), ElementsEqual(std::vector<double>(1000, 2.0), {1000}))
      << case_name("fill with 1, then fill with 2", DType::int64, {1000})
      << ": the second fill must win (one stream runs in queue order)";
}

TEST_P(BackendTest, EventsCompleteAndOrderOtherStreams) {
  DeviceArray a(backend(), 0, DType::float32, 4096);
  backend().fill(a.view({4096}), Scalar{5, 5}, stream());
  auto ev = stream().record();
  ev->synchronize();
  EXPECT_TRUE(ev->query()) << "device " << device_name()
                           << ": Event::query() is false after Event::synchronize() returned";
  const int last = backend().device_count() - 1;
  Stream& other = backend().default_stream(last);
  other.wait(*ev);  // orders without blocking; then a cross-device copy sees the fill
  auto b = backend().allocate(last, 4096 * 4);
  backend().copy_device_to_device(*a.buffer, 0, *b, 0, 4096 * 4, other);
  std::vector<float> out(4096);
  backend().copy_device_to_host(*b, 0, out.data(), out.size() * 4, other);
  other.synchronize();
  EXPECT_THAT(std::vector<double>(out.begin(), out.end()),
              ElementsEqual(std::vector<double>(4096, 5.0), {4096}))
      << case_name("fill with 5", DType::float32, {4096}) << ", then copied to " << GetParam()
      << ":" << last << " on that device's stream after waiting for the event";
}

// Four threads, each filling and adding on the one default stream. The same work is first
// checked from this thread, so that a wrong sum is reported as the kernel's error, and only
// a result right alone but wrong under threads as a race.
TEST_P(BackendTest, ConcurrentUseFromThreads) {
  // float64, else float32 (a backend without float64 runs it too; the sums are exact).
  const auto usable = [&](DType d) { return runs(OpFamily::fill, d) && runs(BinaryOp::add, d); };
  const DType t = usable(DType::float64) ? DType::float64 : DType::float32;
  if (!usable(t)) GTEST_SKIP() << "needs fill and add in float64 or float32";
  constexpr int kThreads = 4;
  // x = fill(v); y = x + x; returns "" or what was wrong (the first differing element).
  const auto fill_and_add = [&](std::int64_t n, double v) -> std::string {
    DeviceArray a(backend(), 0, t, n), b(backend(), 0, t, n);
    backend().fill(a.view({n}), Scalar{v, static_cast<std::int64_t>(v)}, stream());
    backend().binary(BinaryOp::add, a.view({n}), a.view({n}), b.view({n}), stream());
    const auto out = b.values();
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i] != 2.0 * v)
        return case_name("add", t, {n}) + ": element [" + std::to_string(i) + "]: got " +
               std::to_string(out[i]) + ", expected " + std::to_string(2.0 * v) +
               " (a = b = " + std::to_string(v) + ", filled just before)";
    return "";
  };
  for (int t = 0; t < kThreads; ++t)
    ASSERT_EQ(fill_and_add(1000 + t * 37, t), "") << "from one thread: the kernel, not a race";
  std::vector<std::thread> threads;
  std::vector<std::string> first_failure(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int iter = 0; iter < 20 && first_failure[t].empty(); ++iter) {
          const std::string wrong = fill_and_add(1000 + t * 37 + iter, t);
          if (!wrong.empty()) first_failure[t] = "iteration " + std::to_string(iter) + ": " + wrong;
        }
      } catch (const std::exception& e) {
        first_failure[t] = std::string("threw: ") + e.what();
      } catch (...) {
        first_failure[t] = "threw a non-std exception";
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(first_failure[t], "")
        << "thread " << t << " of " << kThreads
        << " sharing the default stream (right from one thread: a race)";
}

}  // namespace hetero::conformance
