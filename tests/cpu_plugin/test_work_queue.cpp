// SPDX-License-Identifier: Apache-2.0
// The cpu plugin's WorkQueue on its own (compiled from the plugin's sources): back-pressure
// (issue #25 item 5). A host thread that submits faster than the queue drains blocks once
// kMaxQueued pieces wait; work submitted from queued work never blocks.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "cpu_device.hpp"
#include "work_queue.hpp"

namespace hetero::cpu {
namespace {

// The plugin's own task type (cpu_device.hpp), as the device queues functions.
template <class F>
std::unique_ptr<WorkQueue::Task> task(F f) {
  return std::make_unique<FunctionTask<F>>(std::move(f));
}

// A gate the first task waits at until the test opens it.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool open = false, reached = false;
  void wait() {
    std::unique_lock lock(m);
    reached = true;
    cv.notify_all();
    cv.wait(lock, [&] { return open; });
  }
  void wait_reached() {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return reached; });
  }
  void release() {
    std::lock_guard lock(m);
    open = true;
    cv.notify_all();
  }
};

TEST(WorkQueue, AProducerFasterThanTheQueueBlocksAtTheDepthLimit) {
  WorkQueue queue(nullptr, /*inline_limit=*/-1);  // everything queued
  Gate gate;
  std::atomic<int> ran{0};
  queue.enqueue(task([&] { gate.wait(); }));
  gate.wait_reached();  // the worker is inside the first task
  constexpr int kMore = static_cast<int>(WorkQueue::kMaxQueued) + 500;
  std::atomic<int> submitted{0};
  std::thread producer([&] {
    for (int i = 0; i < kMore; ++i) {
      queue.enqueue(task([&] { ran.fetch_add(1); }));
      submitted.fetch_add(1);
    }
  });
  // The producer fills the queue, then must wait: nothing drains while the gate is shut.
  while (queue.queued() < WorkQueue::kMaxQueued) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(queue.queued(), WorkQueue::kMaxQueued);
  EXPECT_EQ(submitted.load(), static_cast<int>(WorkQueue::kMaxQueued))
      << "the producer went past a full queue";
  gate.release();
  producer.join();
  queue.synchronize();
  EXPECT_EQ(ran.load(), kMore);
  EXPECT_EQ(queue.queued(), 0u);
}

TEST(WorkQueue, WorkSubmittedFromQueuedWorkNeverBlocks) {
  // A queued task that queues more than the limit (a release queued by a task, say) would
  // wait for itself if it were held back.
  WorkQueue queue(nullptr, -1);
  std::atomic<int> ran{0};
  const int kMore = static_cast<int>(WorkQueue::kMaxQueued) * 3;
  queue.enqueue(task([&] {
    for (int i = 0; i < kMore; ++i) queue.enqueue(task([&] { ran.fetch_add(1); }));
  }));
  queue.synchronize();  // the outer task
  queue.synchronize();  // what it queued
  EXPECT_EQ(ran.load(), kMore);
}

TEST(WorkQueue, AnErrorOfQueuedWorkIsKeptForTheNextSynchronize) {
  WorkQueue queue(nullptr, -1);
  queue.enqueue(task([] { throw std::runtime_error("boom"); }));
  for (int i = 0; i < 2000; ++i) queue.enqueue(task([] {}));
  EXPECT_THROW(queue.synchronize(), std::runtime_error);
  EXPECT_NO_THROW(queue.synchronize()) << "the error was not cleared";
}

}  // namespace
}  // namespace hetero::cpu
