// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the cpu plugin's oneDNN kernels share (onednn_conv.cpp, onednn_batch_norm.cpp): the
// engine, the HETERO_CPU_ONEDNN=0 switch and the calling thread's OpenMP thread count for
// one call. Only in builds with oneDNN (HETERO_CPU_ONEDNN).
#if HETERO_CPU_ONEDNN
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

}  // namespace hetero::cpu::kernels::onednn
#endif
