// SPDX-License-Identifier: Apache-2.0
// Streams and events: ordering, waits, and concurrent use from several threads.
#include <algorithm>
#include <array>
#include <cmath>
#include <thread>

#include <hetero/conformance/conformance.hpp>

namespace hetero::conformance {

TEST_P(BackendTest, WorkRunsInQueueOrder) {
  // fill 1, fill 2, copy to host: the host sees 2 everywhere.
  DeviceArray a(backend(), 0, DType::int64, 1000);
  backend().fill(a.view({1000}), Scalar{1, 1}, stream());
  backend().fill(a.view({1000}), Scalar{2, 2}, stream());
  std::vector<std::int64_t> out(1000);
  a.download(out.data());
  for (auto v : out) ASSERT_EQ(v, 2);
}

TEST_P(BackendTest, EventsCompleteAndOrderOtherStreams) {
  DeviceArray a(backend(), 0, DType::float32, 4096);
  backend().fill(a.view({4096}), Scalar{5, 5}, stream());
  auto ev = stream().record();
  ev->synchronize();
  EXPECT_TRUE(ev->query());
  const int last = backend().device_count() - 1;
  Stream& other = backend().default_stream(last);
  other.wait(*ev);  // orders without blocking; then a cross-device copy sees the fill
  auto b = backend().allocate(last, 4096 * 4);
  backend().copy_device_to_device(*a.buffer, 0, *b, 0, 4096 * 4, other);
  std::vector<float> out(4096);
  backend().copy_device_to_host(*b, 0, out.data(), out.size() * 4, other);
  other.synchronize();
  for (float v : out) ASSERT_EQ(v, 5.0f);
}

TEST_P(BackendTest, ConcurrentUseFromThreads) {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int iter = 0; iter < 20; ++iter) {
          const std::int64_t n = 1000 + t * 37 + iter;
          DeviceArray a(backend(), 0, DType::float64, n), b(backend(), 0, DType::float64, n);
          backend().fill(a.view({n}), Scalar{static_cast<double>(t), t}, stream());
          backend().binary(BinaryOp::add, a.view({n}), a.view({n}), b.view({n}), stream());
          std::vector<double> out(static_cast<std::size_t>(n));
          b.download(out.data());
          for (double v : out)
            if (v != 2.0 * t) ++failures[t];
        }
      } catch (...) {
        ++failures[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace hetero::conformance
