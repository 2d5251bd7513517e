// SPDX-License-Identifier: Apache-2.0
#include <hetero/devices.hpp>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include <hetero/config.hpp>
#include <hetero/error.hpp>

#include "backend_calls.hpp"
#include "log.hpp"
#include "profiler_record.hpp"
#include "registry.hpp"
#include "transfer_counters.hpp"

namespace hetero {
namespace {

std::vector<Device> gpu_devices() {
  std::vector<Device> out;
  for (const auto& p : detail::Registry::instance().loaded()) {
    const int n = detail::calls::device_count(*p);
    for (int i = 0; i < n; ++i)
      if (detail::calls::device_properties(*p, i).kind == DeviceKind::gpu)
        out.emplace_back(p->status.name, i);
  }
  return out;
}

// Why there is no GPU (or not enough): the reasons every backend gave.
std::string no_gpu_reason(int wanted) {
  std::string why = "no GPU device " + std::to_string(wanted) + " (" + std::to_string(num_gpus()) +
                    " GPU(s) found)";
  for (const auto& r : backend_status())
    if (!r.reason.empty()) why += "; " + (r.name.empty() ? r.path : r.name) + ": " + r.reason;
  return why;
}

Device fallback_to_cpu(int i) {
  if (config::flag("HETERO_REQUIRE_GPU", false))
    throw DeviceUnavailableError("HETERO_REQUIRE_GPU=1: " + no_gpu_reason(i));
  static std::once_flag once;
  if (detail::log_enabled())
    std::call_once(once,
                   [i] { detail::log_info("try_gpu falls back to cpu: " + no_gpu_reason(i)); });
  return Device::cpu();
}

}  // namespace

int device_count(const std::string& type) {
  auto p = detail::Registry::instance().find(type);
  return p ? detail::calls::device_count(*p) : 0;
}

int num_gpus() { return static_cast<int>(gpu_devices().size()); }

Device try_gpu(int i) {
  const auto gpus = gpu_devices();
  if (i >= 0 && static_cast<std::size_t>(i) < gpus.size()) return gpus[static_cast<std::size_t>(i)];
  return fallback_to_cpu(i);
}

std::vector<Device> try_all_gpus() {
  auto gpus = gpu_devices();
  if (gpus.empty()) return {fallback_to_cpu(0)};
  return gpus;
}

std::vector<Device> all_devices() {
  std::vector<Device> out;
  for (const auto& p : detail::Registry::instance().loaded())
    for (int i = 0; i < detail::calls::device_count(*p); ++i) out.emplace_back(p->status.name, i);
  return out;
}

DeviceInfo device_info(const Device& d) {
  const auto p = detail::plugin_for(d);
  DeviceInfo info;
  info.device = d;
  info.backend = p->status.name;
  info.properties = detail::calls::device_properties(*p, d.index());
  info.capabilities = detail::calls::capabilities(*p, d.index());
  info.memory = memory_stats(d);
  return info;
}

// Memory of d that tensors made before unload_plugins() still hold lives in retired
// instances of d's backend (Note [Retired plugins]); it is still the device's memory.
MemoryStats memory_stats(const Device& d) {
  MemoryStats total = detail::calls::memory_stats(*detail::plugin_for(d), d.index());
  for (const auto& old : detail::Registry::instance().retired(d.type())) {
    if (d.index() >= detail::calls::device_count(*old)) continue;
    const MemoryStats s = detail::calls::memory_stats(*old, d.index());
    total.allocated += s.allocated;
    total.reserved += s.reserved;
    total.allocation_count += s.allocation_count;
    total.pool_hits += s.pool_hits;
    total.peak_allocated = std::max(total.peak_allocated, s.peak_allocated);
  }
  total.peak_allocated = std::max(total.peak_allocated, total.allocated);
  return total;
}

void empty_cache(const Device& d) {
  detail::calls::empty_cache(*detail::plugin_for(d), d.index());
  for (const auto& old : detail::Registry::instance().retired(d.type()))
    if (d.index() < detail::calls::device_count(*old)) detail::calls::empty_cache(*old, d.index());
}

void synchronize(const Device& d) {
  {
    const detail::prof::Scope wait("sync", "synchronize " + d.str());
    detail::default_stream_for(d).synchronize();
  }
  detail::count_host_sync(d);
}

}  // namespace hetero
