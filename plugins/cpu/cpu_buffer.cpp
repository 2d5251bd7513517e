// SPDX-License-Identifier: Apache-2.0
#include "cpu_buffer.hpp"

#include "cpu_device.hpp"

namespace hetero::cpu {

CpuBuffer::~CpuBuffer() {
  // A kernel still queued may yet fail and mark this allocation: forget it after that
  // kernel, in stream order (at once when nothing is queued). Note [Poisoned buffers].
  if (device_->queue().idle())
    poison::forget(id());
  else
    device_->run_in_order([id = id()] { poison::forget(id); });
  device_->memory().free(block_);
}
int CpuBuffer::device() const noexcept { return device_->index(); }

AdoptedBuffer::~AdoptedBuffer() {
  try {
    device_->stream().synchronize();  // the owner gets its memory back once nothing uses it
  } catch (...) {  // a failed kernel: its error surfaces at the caller's next wait
  }
  if (release_) release_();
}

int AdoptedBuffer::device() const noexcept { return device_->index(); }

}  // namespace hetero::cpu
