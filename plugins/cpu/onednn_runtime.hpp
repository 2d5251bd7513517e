// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the cpu plugin's oneDNN kernels share (onednn_conv.cpp, onednn_batch_norm.cpp): the
// engine, the HETERO_CPU_ONEDNN=0 switch and the calling thread's OpenMP thread count for
// one call. Only in builds with oneDNN (HETERO_CPU_ONEDNN).
#if HETERO_CPU_ONEDNN
#include <cstddef>
#include <mutex>

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
/// faults and the kernel's zeroing) took a tenth of a small convolution's time. One
/// KeptBuffers lives for the length of one call: it holds the thread's blocks (a lock of the
/// thread's own, which release_kept_buffers() also takes, so that they are never freed under
/// a running primitive) and at its end frees those above kKeptBytes, so that a thread keeps
/// at most kThreadBufferSlots * kKeptBytes between calls. Not to be nested on one thread. Slots
/// 0-3 hold one primitive's operands and scratchpad; slot 4, what the threads of a split call
/// share (Note [oneDNN on the kernel threads]).
struct ThreadBlocks;  // onednn_runtime.cpp
class KeptBuffers {
 public:
  KeptBuffers();
  ~KeptBuffers();
  KeptBuffers(const KeptBuffers&) = delete;
  KeptBuffers& operator=(const KeptBuffers&) = delete;
  /// Slot `slot` (0 to kThreadBufferSlots - 1): at least `bytes` bytes, 64-byte aligned
  /// (huge pages from 2 MiB), valid until this object's end; its contents are undefined.
  /// Throws std::bad_alloc.
  void* get(int slot, std::size_t bytes);

 private:
  ThreadBlocks& blocks_;
};
inline constexpr int kThreadBufferSlots = 5;
inline constexpr std::size_t kKeptBytes = std::size_t{64} << 20;

/// Frees the blocks every thread keeps (a thread inside a call: when its call ends), as
/// Backend::empty_cache does with cached memory. Thread-safe.
void release_kept_buffers() noexcept;
/// Bytes the threads keep between calls (and hold in calls now). Thread-safe.
std::size_t kept_bytes() noexcept;

}  // namespace hetero::cpu::kernels::onednn
#endif
