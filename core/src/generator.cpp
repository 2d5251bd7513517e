// SPDX-License-Identifier: Apache-2.0
#include <hetero/generator.hpp>

#include <memory>
#include <unordered_map>

#include <hetero/factories.hpp>

#include "default_generators.hpp"
#include "registry.hpp"

namespace hetero {

void Generator::manual_seed(std::uint64_t seed) {
  std::lock_guard lock(mutex_);
  state_ = {seed, 0};
}

std::uint64_t Generator::initial_seed() const {
  std::lock_guard lock(mutex_);
  return state_.seed;
}

GeneratorState Generator::get_state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

void Generator::set_state(const GeneratorState& state) {
  std::lock_guard lock(mutex_);
  state_ = state;
}

GeneratorState Generator::reserve(std::uint64_t counters) {
  std::lock_guard lock(mutex_);
  const GeneratorState at = state_;
  state_.offset += counters;
  return at;
}

namespace {

// The devices' default generators, made on first use, and the seed manual_seed() last set
// (a device first used after it starts from that seed).
struct DefaultGenerators {
  std::mutex mutex;
  std::uint64_t seed = kDefaultSeed;
  std::unordered_map<Device, std::unique_ptr<Generator>> by_device;
};
DefaultGenerators& defaults() {
  static DefaultGenerators* d = new DefaultGenerators;  // never destroyed: used at exit too
  return *d;
}

}  // namespace

namespace detail {

Generator& device_generator(const Device& device) {
  auto& d = defaults();
  std::lock_guard lock(d.mutex);
  auto& g = d.by_device[device];
  if (!g) g = std::make_unique<Generator>(d.seed);
  return *g;
}

}  // namespace detail

Generator& default_generator(const Device& device) {
  (void)detail::plugin_for(device);  // InvalidDeviceError for a device that does not exist
  return detail::device_generator(device);
}

void manual_seed(std::uint64_t seed) {
  auto& d = defaults();
  std::lock_guard lock(d.mutex);
  d.seed = seed;
  for (auto& [device, g] : d.by_device) g->manual_seed(seed);
}

}  // namespace hetero
