// SPDX-License-Identifier: Apache-2.0
#pragma once
// CpuStream and CpuEvent: the Stream/Event interface over a CPU device's WorkQueue.
// An event is a ticket of its queue; a stream waiting on another device's event queues
// a task that blocks its worker until that ticket completes (the host does not block).
#include <atomic>
#include <cstdint>
#include <memory>

#include <hetero/sdk/stream.hpp>

namespace hetero::cpu {

class CpuDevice;

class CpuEvent final : public Event {
 public:
  /// `stamp`: a timestamp's time (CpuStream::record_timestamp), written by its queued task.
  CpuEvent(std::shared_ptr<CpuDevice> device, std::uint64_t ticket,
           std::shared_ptr<const std::atomic<std::int64_t>> stamp = nullptr)
      : device_(std::move(device)), ticket_(ticket), stamp_(std::move(stamp)) {}
  void synchronize() override;
  bool query() override;
  const std::shared_ptr<CpuDevice>& device() const noexcept { return device_; }
  std::uint64_t ticket() const noexcept { return ticket_; }
  /// A timestamp's steady_clock time in nanoseconds, valid once query() is true; null for
  /// an event of record().
  const std::atomic<std::int64_t>* stamp() const noexcept { return stamp_.get(); }

 private:
  std::shared_ptr<CpuDevice> device_;  // keeps the queue alive while the event lives
  std::uint64_t ticket_;
  std::shared_ptr<const std::atomic<std::int64_t>> stamp_;
};

class CpuStream final : public Stream {
 public:
  explicit CpuStream(CpuDevice& device) : device_(device) {}
  int device() const noexcept override;
  void synchronize() override;
  std::unique_ptr<Event> record() override;
  void wait(Event& event) override;
  /// An event that, when the queue reaches it, notes the time (Backend::record_timestamp):
  /// the work queued before it has then finished. Inline when the queue is idle.
  std::unique_ptr<CpuEvent> record_timestamp();
  CpuDevice& cpu_device() const noexcept { return device_; }

 private:
  CpuDevice& device_;
};

}  // namespace hetero::cpu
