// SPDX-License-Identifier: Apache-2.0
#include "cpu_stream.hpp"

#include <chrono>

#include "cpu_device.hpp"

namespace hetero::cpu {

void CpuEvent::synchronize() { device_->queue().wait(ticket_); }
bool CpuEvent::query() { return device_->queue().reached(ticket_); }

int CpuStream::device() const noexcept { return device_.index(); }
void CpuStream::synchronize() { device_.queue().synchronize(); }

std::unique_ptr<Event> CpuStream::record() {
  return std::make_unique<CpuEvent>(device_.shared_from_this(), device_.queue().last_ticket());
}

std::unique_ptr<CpuEvent> CpuStream::record_timestamp() {
  auto stamp = std::make_shared<std::atomic<std::int64_t>>(0);
  device_.run_sized(0, [stamp] {
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    stamp->store(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count(),
                 std::memory_order_release);
  });
  return std::make_unique<CpuEvent>(device_.shared_from_this(), device_.queue().last_ticket(),
                                    std::move(stamp));
}

void CpuStream::wait(Event& event) {
  auto* cpu_event = dynamic_cast<CpuEvent*>(&event);
  if (!cpu_event) {  // not ours (the contract says same backend): wait on the host
    event.synchronize();
    return;
  }
  // Work of this queue is already ordered; a completed ticket needs nothing.
  if (cpu_event->device().get() == &device_ || cpu_event->query()) return;
  // Always queued, never run inline: the host must not block here.
  auto wait_for = [other = cpu_event->device(), ticket = cpu_event->ticket()] {
    other->queue().wait(ticket);
  };
  device_.queue().enqueue(std::make_unique<FunctionTask<decltype(wait_for)>>(std::move(wait_for)));
}

}  // namespace hetero::cpu
