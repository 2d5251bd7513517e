// SPDX-License-Identifier: Apache-2.0
#pragma once
// CpuStream and CpuEvent: the Stream/Event interface over a CPU device's WorkQueue.
// An event is a ticket of its queue; a stream waiting on another device's event queues
// a task that blocks its worker until that ticket completes (the host does not block).
#include <cstdint>
#include <memory>

#include <hetero/sdk/stream.hpp>

namespace hetero::cpu {

class CpuDevice;

class CpuEvent final : public Event {
 public:
  CpuEvent(std::shared_ptr<CpuDevice> device, std::uint64_t ticket)
      : device_(std::move(device)), ticket_(ticket) {}
  void synchronize() override;
  bool query() override;
  const std::shared_ptr<CpuDevice>& device() const noexcept { return device_; }
  std::uint64_t ticket() const noexcept { return ticket_; }

 private:
  std::shared_ptr<CpuDevice> device_;  // keeps the queue alive while the event lives
  std::uint64_t ticket_;
};

class CpuStream final : public Stream {
 public:
  explicit CpuStream(CpuDevice& device) : device_(device) {}
  int device() const noexcept override;
  void synchronize() override;
  std::unique_ptr<Event> record() override;
  void wait(Event& event) override;
  CpuDevice& cpu_device() const noexcept { return device_; }

 private:
  CpuDevice& device_;
};

}  // namespace hetero::cpu
