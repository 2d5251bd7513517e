#pragma once
// CpuStream: the CPU backend executes each kernel and copy when it is enqueued, so the
// stream is always complete: synchronize() and events return at once. (Issue #7 gives
// each device a worker thread.)
#include <memory>

#include <hetero/sdk/stream.hpp>

namespace hetero::cpu {

class CompletedEvent final : public Event {
 public:
  void synchronize() override {}
  bool query() override { return true; }
};

class CpuStream final : public Stream {
 public:
  explicit CpuStream(int device) : device_(device) {}
  int device() const noexcept override { return device_; }
  void synchronize() override {}
  std::unique_ptr<Event> record() override { return std::make_unique<CompletedEvent>(); }
  void wait(Event&) override {}

 private:
  int device_;
};

}  // namespace hetero::cpu
