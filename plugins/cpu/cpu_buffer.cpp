#include "cpu_buffer.hpp"

#include "cpu_device.hpp"

namespace hetero::cpu {

CpuBuffer::~CpuBuffer() { device_->memory().free(block_); }
int CpuBuffer::device() const noexcept { return device_->index(); }

}  // namespace hetero::cpu
