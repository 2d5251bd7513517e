// SPDX-License-Identifier: Apache-2.0
#include <hetero/transfer_stats.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "transfer_counters.hpp"

namespace hetero {
namespace {

struct Counters {
  std::atomic<std::uint64_t> h2d{0}, h2d_bytes{0}, d2h{0}, d2h_bytes{0}, d2d{0}, d2d_bytes{0},
      staged{0}, syncs{0};
};

struct Table {
  std::mutex mutex;
  std::unordered_map<Device, std::unique_ptr<Counters>> by_device;  // entries are never removed
};
Table& table() {
  static Table t;
  return t;
}
Counters& counters(const Device& d) {
  // One entry per thread: a loop counting on one device looks it up once (entries are
  // never removed, so the pointer stays valid).
  thread_local std::optional<Device> last;
  thread_local Counters* last_counters = nullptr;
  if (last_counters && *last == d) return *last_counters;
  auto& t = table();
  std::lock_guard lock(t.mutex);
  auto& slot = t.by_device[d];
  if (!slot) slot = std::make_unique<Counters>();
  last = d;
  last_counters = slot.get();
  return *slot;
}

}  // namespace

namespace detail {

void count_copy(const Device& d, CopyKind kind, std::size_t bytes) {
  auto& c = counters(d);
  const auto n = static_cast<std::uint64_t>(bytes);
  switch (kind) {
    case CopyKind::host_to_device:
      ++c.h2d;
      c.h2d_bytes += n;
      break;
    case CopyKind::device_to_host:
      ++c.d2h;
      c.d2h_bytes += n;
      break;
    case CopyKind::device_to_device:
      ++c.d2d;
      c.d2d_bytes += n;
      break;
    case CopyKind::staged:
      ++c.staged;
      break;
  }
}

void count_host_sync(const Device& d) { ++counters(d).syncs; }

}  // namespace detail

TransferStats transfer_stats(const Device& d) {
  auto& c = counters(d);
  TransferStats s;
  s.host_to_device = c.h2d;
  s.host_to_device_bytes = c.h2d_bytes;
  s.device_to_host = c.d2h;
  s.device_to_host_bytes = c.d2h_bytes;
  s.device_to_device = c.d2d;
  s.device_to_device_bytes = c.d2d_bytes;
  s.staged = c.staged;
  s.host_syncs = c.syncs;
  return s;
}

void reset_transfer_stats() {
  auto& t = table();
  std::lock_guard lock(t.mutex);
  for (auto& [d, c] : t.by_device)
    for (auto* a : {&c->h2d, &c->h2d_bytes, &c->d2h, &c->d2h_bytes, &c->d2d, &c->d2d_bytes,
                    &c->staged, &c->syncs})
      a->store(0);
}

}  // namespace hetero
