// SPDX-License-Identifier: Apache-2.0
#include "copy.hpp"

#include <cstring>
#include <string>

#include "backend_calls.hpp"
#include "log.hpp"
#include "profiler_record.hpp"
#include "transfer_counters.hpp"

namespace hetero::detail {

void read_bytes(const Storage& src, std::size_t src_offset, void* dst, std::size_t bytes) {
  if (bytes == 0) return;
  calls::copy_device_to_host(src, src_offset, dst, bytes);
  src.stream().synchronize();
  count_copy(src.device, CopyKind::device_to_host, bytes);
  count_host_sync(src.device);
}

void write_bytes(const void* src, const Storage& dst, std::size_t dst_offset, std::size_t bytes) {
  if (bytes == 0) return;
  calls::copy_host_to_device(src, dst, dst_offset, bytes);
  // Pageable host memory: the caller may free `src` on return, so wait for the copy.
  dst.stream().synchronize();
  count_copy(dst.device, CopyKind::host_to_device, bytes);
  count_host_sync(dst.device);
}

namespace {
// HETERO_LOG=debug: one line per copy between two devices, with the path it takes.
void log_copy(const Storage& src, const Storage& dst, std::size_t bytes, const char* path) {
  if (src.device == dst.device || !log_enabled(LogLevel::debug)) return;
  log_debug("copy " + std::to_string(bytes) + " bytes " + src.device.str() + " -> " +
            dst.device.str() + ": " + path);
}
}  // namespace

void copy_bytes(const Storage& src, std::size_t src_offset, const Storage& dst,
                std::size_t dst_offset, std::size_t bytes) {
  if (bytes == 0) return;
  if (src.plugin == dst.plugin) {
    // Rung 1: within one backend. Order dst's stream after the work queued on src's.
    if (src.device != dst.device) {
      auto ready = src.stream().record();
      dst.stream().wait(*ready);
    }
    calls::copy_device_to_device(src, src_offset, dst, dst_offset, bytes);
    if (src.device != dst.device) {
      // And src's stream after the copy (as torch's copy between devices): later work on
      // src's device may overwrite the source, or reuse its memory once freed (Note
      // [Stream-ordered reuse], caching_allocator.hpp), only after dst has read it.
      auto copied = dst.stream().record();
      src.stream().wait(*copied);
    }
    count_copy(dst.device, CopyKind::device_to_device, bytes);
    log_copy(src, dst, bytes, "within one backend (stream-ordered)");
    return;
  }
  if (void* host = src.buffer->host_pointer()) {
    // Rung 2: the source is host memory; the destination backend uploads it. Memory the
    // destination backend pinned itself is uploaded asynchronously: that backend keeps
    // the block alive until the copy is done (Backend::allocate_pinned_host).
    {
      const prof::Scope wait("sync", "synchronize", &src);
      src.stream().synchronize();
    }
    count_host_sync(src.device);
    const char* from = static_cast<const char*>(host) + src_offset;
    if (src.pinned && src.memory_owner == dst.plugin) {
      calls::copy_host_to_device(from, dst, dst_offset, bytes);
      count_copy(dst.device, CopyKind::host_to_device, bytes);
      log_copy(src, dst, bytes, "upload from pinned memory (asynchronous)");
      return;
    }
    write_bytes(from, dst, dst_offset, bytes);
    log_copy(src, dst, bytes, "upload from pageable memory (waits for the copy)");
    return;
  }
  if (void* host = dst.buffer->host_pointer()) {
    // Rung 3: the destination is host memory; the source backend downloads into it.
    {
      const prof::Scope wait("sync", "synchronize", &dst);
      dst.stream().synchronize();
    }
    count_host_sync(dst.device);
    read_bytes(src, src_offset, static_cast<char*>(host) + dst_offset, bytes);
    log_copy(src, dst, bytes, "download into host memory");
    return;
  }
  // Rung 4: staged through host memory (slow: two transfers).
  count_copy(dst.device, CopyKind::staged, bytes);
  std::vector<char> staging(bytes);
  read_bytes(src, src_offset, staging.data(), bytes);
  write_bytes(staging.data(), dst, dst_offset, bytes);
  log_copy(src, dst, bytes, "staged through host memory (two transfers, different backends)");
}

}  // namespace hetero::detail
