#include "cpu_buffer.hpp"

#include <cstdlib>

namespace hetero::cpu {

CpuBuffer::CpuBuffer(void* data, std::size_t bytes, int device, std::shared_ptr<MemoryCounter> counters)
    : data_(data), bytes_(bytes), device_(device), counters_(std::move(counters)) {
  counters_->allocated(bytes_);
}

CpuBuffer::~CpuBuffer() {
  std::free(data_);
  counters_->released(bytes_);
}

}  // namespace hetero::cpu
