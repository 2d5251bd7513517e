// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the cpu plugin's oneDNN kernels share (onednn_conv.cpp, onednn_batch_norm.cpp): the
// engine, the HETERO_CPU_ONEDNN=0 switch and the calling thread's OpenMP thread count for
// one call. Only in builds with oneDNN (HETERO_CPU_ONEDNN).
#if HETERO_CPU_ONEDNN
#include <cstddef>

#include <dnnl.hpp>

namespace hetero::cpu::kernels::onednn {

/// The process's oneDNN cpu engine. Thread-safe (built once).
dnnl::engine& engine();

/// False when the environment says HETERO_CPU_ONEDNN=0 (read once): the plugin's own kernels
/// then run everything, for comparisons.
bool enabled() noexcept;

/// For its scope, the calling thread's OpenMP thread count (which Debian's oneDNN runs its
/// primitives on) is `threads` (>= 1; the device's kernel threads), then restored: a per-thread
/// setting, so nothing else in the process changes (issue #49 item 2). The thread may be the
/// application's own, when small work runs inline.
class ThreadScope {
 public:
  explicit ThreadScope(int threads);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int caller_threads_;
};

/// Memory of the calling thread for one oneDNN call's intermediate operands (the inputs and
/// output in the primitive's layout, its scratchpad), kept for the thread's next call:
/// `memory(desc, engine)` allocated them afresh on each call, and their first touch (page
/// faults and the kernel's zeroing) took a tenth of a small convolution's time. Slot `slot`
/// (0 to kThreadBufferSlots - 1) holds at least `bytes` bytes, 64-byte aligned, until the
/// thread's next call for the same slot or its exit; its contents are undefined. Blocks above
/// kKeptBytes are freed by release_large_buffers() at the end of the call, so a thread keeps
/// at most kThreadBufferSlots * kKeptBytes. Throws std::bad_alloc. Per thread: no locking.
inline constexpr int kThreadBufferSlots = 4;
inline constexpr std::size_t kKeptBytes = std::size_t{64} << 20;
void* thread_buffer(int slot, std::size_t bytes);
/// Frees the calling thread's blocks larger than kKeptBytes.
void release_large_buffers() noexcept;

}  // namespace hetero::cpu::kernels::onednn
#endif
