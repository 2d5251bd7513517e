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
#include <vector>

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

// One thread's blocks and the lock that KeptBuffers and release_kept_buffers() take.
struct ThreadBlocks {
  std::mutex mutex;
  std::array<Block, kThreadBufferSlots> blocks;
};

namespace {
// Every live thread's blocks. Never destroyed: threads may end after static destruction.
struct Registry {
  std::mutex mutex;
  std::vector<ThreadBlocks*> threads;
};
Registry& registry() {
  static auto* r = new Registry;
  return *r;
}
// The calling thread's blocks, in the registry from its first call to its exit.
struct Registration {
  ThreadBlocks blocks;
  Registration() {
    const std::lock_guard lock(registry().mutex);
    registry().threads.push_back(&blocks);
  }
  ~Registration() {
    const std::lock_guard lock(registry().mutex);
    std::erase(registry().threads, &blocks);
  }  // then the blocks are freed, out of the registry's reach
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
};
ThreadBlocks& this_threads_blocks() {
  thread_local Registration mine;
  return mine.blocks;
}
}  // namespace

KeptBuffers::KeptBuffers() : blocks_(this_threads_blocks()) { blocks_.mutex.lock(); }

KeptBuffers::~KeptBuffers() {
  for (Block& b : blocks_.blocks)
    if (b.bytes > kKeptBytes) b.reset();
  blocks_.mutex.unlock();
}

void* KeptBuffers::get(int slot, std::size_t bytes) {
  Block& b = blocks_.blocks.at(static_cast<std::size_t>(slot));
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

void release_kept_buffers() noexcept {
  const std::lock_guard lock(registry().mutex);
  for (ThreadBlocks* t : registry().threads) {
    const std::lock_guard held(t->mutex);
    for (Block& b : t->blocks) b.reset();
  }
}

std::size_t kept_bytes() noexcept {
  const std::lock_guard lock(registry().mutex);
  std::size_t total = 0;
  for (ThreadBlocks* t : registry().threads) {
    const std::lock_guard held(t->mutex);
    for (const Block& b : t->blocks) total += b.bytes;
  }
  return total;
}

}  // namespace hetero::cpu::kernels::onednn
#endif
