// SPDX-License-Identifier: Apache-2.0
#include "onednn_runtime.hpp"

#if HETERO_CPU_ONEDNN
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <new>
#include <string_view>

namespace hetero::cpu::kernels::onednn {

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

bool enabled() noexcept {
  static const bool on = [] {
    const char* v = std::getenv("HETERO_CPU_ONEDNN");
    return v == nullptr || std::string_view(v) != "0";
  }();
  return on;
}

ThreadScope::ThreadScope(int threads) : caller_threads_(omp_get_max_threads()) {
  omp_set_num_threads(threads > 0 ? threads : 1);
}

ThreadScope::~ThreadScope() { omp_set_num_threads(caller_threads_); }

namespace {
// A block of the thread's: from mmap with huge pages requested from 2 MiB (as the cpu
// plugin's tensors, HostMemory: the reorders walk 16 channels at once, 16 pages apart with
// small pages), else from aligned_alloc.
constexpr std::size_t kHugePage = std::size_t{2} << 20;
struct Block {
  void* data = nullptr;
  std::size_t bytes = 0;
  Block() = default;
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  ~Block() { reset(); }
  void reset() noexcept {
    if (data != nullptr && bytes >= kHugePage)
      ::munmap(data, bytes);
    else
      std::free(data);
    data = nullptr;
    bytes = 0;
  }
};
thread_local std::array<Block, kThreadBufferSlots> buffers;
}  // namespace

void* thread_buffer(int slot, std::size_t bytes) {
  Block& b = buffers.at(static_cast<std::size_t>(slot));
  if (b.bytes < bytes || b.data == nullptr) {
    b.reset();  // first: the old block's memory may be reused
    // (A primitive without scratchpad asks for 0 bytes: one line, so the block is never null.)
    const std::size_t rounded = bytes < kHugePage
                                    ? std::max<std::size_t>(64, (bytes + 63) / 64 * 64)
                                    : (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = nullptr;
    if (rounded >= kHugePage) {
      p = ::mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      ::madvise(p, rounded, MADV_HUGEPAGE);
    } else {
      p = std::aligned_alloc(64, rounded);
      if (p == nullptr) throw std::bad_alloc();
    }
    b.data = p;
    b.bytes = rounded;
  }
  return b.data;
}

void release_large_buffers() noexcept {
  for (Block& b : buffers)
    if (b.bytes > kKeptBytes) b.reset();
}

}  // namespace hetero::cpu::kernels::onednn
#endif
