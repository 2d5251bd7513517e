#include "cpu_device.hpp"

#include <cstdlib>

namespace hetero::cpu {

CpuDevice::CpuDevice(int index, int threads, std::int64_t inline_limit, bool pooling)
    : index_(index),
      pool_(std::make_unique<ThreadPool>(threads)),
      queue_(pool_.get(), inline_limit),
      memory_(CachingAllocator::RawMemory{
                  // Sizes are multiples of 512, as aligned_alloc requires of its size.
                  [](std::size_t bytes) { return std::aligned_alloc(64, bytes); },
                  [this](void* ptr, std::size_t) { run_in_order([ptr] { std::free(ptr); }); }},
              pooling),
      stream_(*this) {}

}  // namespace hetero::cpu
