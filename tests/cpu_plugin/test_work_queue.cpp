// SPDX-License-Identifier: Apache-2.0
// The cpu plugin's WorkQueue on its own (compiled from the plugin's sources): back-pressure
// (issue #25 item 5). A host thread that submits faster than the queue drains blocks once
// kMaxQueued pieces wait, and threads waiting for room enter in turn (Note [Fair
// back-pressure]) and are woken in batches, a waiting thread only when its work is done
// (Note [Wake waiters that can proceed]); work submitted from queued work never blocks; work for
// the caller runs on the caller, after the work before it (Note [Work that runs on the caller]).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

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

// Note [Wake waiters that can proceed]: a thread in synchronize() behind many queued pieces
// sleeps until its last one is done; it is not woken at every completion (each a futex wake
// through the hypervisor, which made a host that queued an LSTM's 700 small ops 2x slower).
TEST(WorkQueue, AWaitingThreadIsWokenWhenItsWorkIsDoneNotAtEveryPiece) {
  WorkQueue queue(nullptr, /*inline_limit=*/-1);  // everything queued
  Gate gate;
  std::atomic<int> ran{0};
  queue.enqueue(task([&] { gate.wait(); }));
  gate.wait_reached();  // the worker is inside the first task
  constexpr int kPieces = 500;
  for (int i = 0; i < kPieces; ++i) queue.enqueue(task([&] { ran.fetch_add(1); }));
  std::thread waiter([&] { queue.synchronize(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the waiter is asleep
  const std::uint64_t before = queue.wakeups();
  gate.release();
  waiter.join();
  EXPECT_EQ(ran.load(), kPieces);
  // The completion of its last piece; a spurious wake or the first piece's may add one.
  EXPECT_LE(queue.wakeups() - before, 3u) << "woken per piece";
}

// A thread that keeps a full queue full is woken once half of it has drained and refills it
// in a batch, not once per completed piece.
TEST(WorkQueue, AProducerWaitingForRoomRefillsInBatches) {
  WorkQueue queue(nullptr, /*inline_limit=*/-1);
  Gate gate;
  std::atomic<int> ran{0};
  queue.enqueue(task([&] { gate.wait(); }));
  gate.wait_reached();
  constexpr int kMore = 4 * static_cast<int>(WorkQueue::kMaxQueued);
  std::thread producer([&] {
    for (int i = 0; i < kMore; ++i) queue.enqueue(task([&] { ran.fetch_add(1); }));
  });
  while (queue.waiting_for_room() < 1) std::this_thread::yield();
  const std::uint64_t before = queue.wakeups();
  gate.release();
  producer.join();
  queue.synchronize();
  EXPECT_EQ(ran.load(), kMore);
  // (kMore - kMaxQueued) / (kMaxQueued / 2) = 6 refills, and a few spurious wakes; per
  // piece it was about 3000.
  EXPECT_LE(queue.wakeups() - before, 20u);
}

// Note [Fair back-pressure]: a thread that keeps refilling a full queue does not hold off
// another thread waiting for room; they enter in the order they started waiting.
TEST(WorkQueue, ThreadsWaitingForRoomEnterInTheOrderTheyCame) {
  WorkQueue queue(nullptr, /*inline_limit=*/-1);  // everything queued
  Gate gate;
  std::mutex log_mutex;
  std::vector<char> log;  // who submitted each task, in the order the tasks ran
  auto logged = [&](char who) {
    return task([&, who] {
      std::lock_guard lock(log_mutex);
      log.push_back(who);
    });
  };
  queue.enqueue(task([&] { gate.wait(); }));
  gate.wait_reached();  // the worker is inside the first task; nothing drains
  constexpr int kFlood = 3000;
  std::thread flooder([&] {  // fills the queue, then keeps refilling it
    for (int i = 0; i < kFlood; ++i) queue.enqueue(logged('A'));
  });
  while (queue.waiting_for_room() < 1) std::this_thread::yield();
  EXPECT_EQ(queue.queued(), WorkQueue::kMaxQueued);
  std::thread other([&] { queue.enqueue(logged('B')); });  // one task, behind the flooder
  while (queue.waiting_for_room() < 2) std::this_thread::yield();
  gate.release();
  other.join();
  flooder.join();
  queue.synchronize();
  ASSERT_EQ(log.size(), static_cast<std::size_t>(kFlood) + 1);
  const auto b = std::find(log.begin(), log.end(), 'B') - log.begin();
  // The kMaxQueued tasks queued before anyone waited, the one the flooder was waiting to
  // submit (its turn came first), then B's.
  EXPECT_EQ(b, static_cast<std::ptrdiff_t>(WorkQueue::kMaxQueued) + 1)
      << "B's task ran after " << b << " of the flooder's";
  EXPECT_EQ(queue.waiting_for_room(), 0u);
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

// Note [Work that runs on the caller]: convolutions on oneDNN run on the thread that submits
// them, after everything queued before them, whatever the inline limit; the queue keeps order.
TEST(WorkQueue, WorkForTheCallerRunsOnTheCallerAfterTheWorkBeforeIt) {
  WorkQueue queue(nullptr, /*inline_limit=*/-1);  // nothing small runs inline
  const std::thread::id host = std::this_thread::get_id();
  Gate gate;
  std::mutex m;
  std::vector<int> order;
  std::vector<std::thread::id> ran_on;
  const auto record = [&](int i) {
    const std::lock_guard lock(m);
    order.push_back(i);
    ran_on.push_back(std::this_thread::get_id());
  };
  queue.enqueue(task([&] {
    gate.wait();
    record(0);
  }));
  gate.wait_reached();  // the worker is inside the first piece
  for (int i = 1; i <= 50; ++i) queue.enqueue(task([&record, i] { record(i); }));
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    gate.release();
  });
  queue.submit(
      1, [&] { record(51); }, [&] { return task([&] { record(-1); }); },
      WorkQueue::Runs::on_caller);
  opener.join();
  EXPECT_EQ(queue.queued(), 0u);
  EXPECT_TRUE(queue.idle()) << "work for the caller returned before it had run";
  queue.enqueue(task([&] { record(52); }));  // work after it is queued as usual
  queue.synchronize();
  ASSERT_EQ(order.size(), 53u);
  for (int i = 0; i < 53; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
  EXPECT_EQ(ran_on[51], host);
  EXPECT_NE(ran_on[0], host);

  // Its error is kept for the next synchronize, as queued work's.
  queue.submit(
      1, [] { throw std::runtime_error("on the caller"); },
      [&] { return task([&] { record(-1); }); }, WorkQueue::Runs::on_caller);
  EXPECT_THROW(queue.synchronize(), std::runtime_error);
  EXPECT_NO_THROW(queue.synchronize());

  // Submitted from queued work (which cannot wait for its own queue): queued behind it.
  queue.enqueue(task([&] {
    queue.submit(
        1, [&] { record(-2); }, [&] { return task([&] { record(53); }); },
        WorkQueue::Runs::on_caller);
  }));
  queue.synchronize();
  queue.synchronize();  // the first covers the work submitted before it
  ASSERT_EQ(order.size(), 54u);
  EXPECT_EQ(order.back(), 53);
}

// A thread that keeps the queue busy does not hold work for the caller back: once the work
// submitted before it has run, it runs, or is queued behind the newer work.
TEST(WorkQueue, WorkForTheCallerIsNotHeldBackByAnotherThreadsStream) {
  WorkQueue queue(nullptr, /*inline_limit=*/-1);
  std::atomic<bool> stop{false}, returned{false};
  std::atomic<int> producer_ran{0};
  std::thread producer([&] {
    // Slower work than submission, 64 pieces waiting at most: the queue never drains, and
    // never reaches the depth limit (whose waiting submitters it serves in no fixed order).
    while (!stop.load()) {
      if (queue.queued() >= 64) {
        std::this_thread::yield();
        continue;
      }
      queue.enqueue(task([&] {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        producer_ran.fetch_add(1);
      }));
    }
  });
  while (producer_ran.load() < 10) std::this_thread::yield();
  std::thread watchdog([&] {  // ends the producer if the submission never returns
    for (int i = 0; i < 600 && !returned.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop.store(true);
  });
  std::atomic<bool> ran{false};
  queue.submit(
      1, [&] { ran.store(true); }, [&] { return task([&] { ran.store(true); }); },
      WorkQueue::Runs::on_caller);
  const bool before_the_watchdog = !stop.load();
  returned.store(true);
  stop.store(true);
  watchdog.join();
  producer.join();
  queue.synchronize();
  EXPECT_TRUE(before_the_watchdog) << "held back until the other thread stopped submitting";
  EXPECT_TRUE(ran.load());
}

}  // namespace
}  // namespace hetero::cpu
