#include "cpu_buffer.hpp"

#include <cstdlib>

namespace hetero::cpu {

void DeviceCounters::add(std::size_t bytes) {
  const std::size_t now = allocated += bytes;
  std::size_t p = peak.load();
  while (now > p && !peak.compare_exchange_weak(p, now)) {
  }
  ++count;
}

MemoryStats DeviceCounters::snapshot() const {
  MemoryStats s;
  s.allocated = allocated.load();
  s.reserved = s.allocated;
  s.peak_allocated = peak.load();
  s.allocation_count = count.load();
  return s;
}

CpuBuffer::CpuBuffer(void* data, std::size_t bytes, int device, std::shared_ptr<DeviceCounters> counters)
    : data_(data), bytes_(bytes), device_(device), counters_(std::move(counters)) {
  counters_->add(bytes_);
}

CpuBuffer::~CpuBuffer() {
  std::free(data_);
  counters_->remove(bytes_);
}

}  // namespace hetero::cpu
