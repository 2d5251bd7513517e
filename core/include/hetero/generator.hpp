// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file generator.hpp
/// hetero::Generator — a random number generator's state, as torch.Generator: a seed and
/// the offset of the next counter of the counter-based stream every backend draws
/// (Philox4x32-10, <hetero/sdk/counter_rng.hpp>). A draw of n elements takes counters
/// [offset, offset + 2n) and advances the offset, so the numbers depend only on the seed and
/// the sequence of draws: the same on every device and backend, whatever the thread count.
#include <cstdint>
#include <mutex>

#include <hetero/device.hpp>
#include <hetero/export.hpp>

namespace hetero {

/// What get_state() returns and set_state() takes (torch's get_state()/set_state(), as two
/// integers instead of a byte tensor).
struct GeneratorState {
  std::uint64_t seed = 0;    ///< the Philox key
  std::uint64_t offset = 0;  ///< counters already used
  /// Same seed and offset.
  friend bool operator==(const GeneratorState&, const GeneratorState&) = default;
};

/// PyTorch's default seed (torch.initial_seed() of a fresh process).
inline constexpr std::uint64_t kDefaultSeed = 67280421310721ULL;

/// A generator to pass to rand/randn (and Dropout through them): its own seed and offset,
/// independent of manual_seed() and of the devices' default generators. Thread-safe (each
/// draw reserves its counters under a lock). Not copyable: share it by reference, as torch
/// shares a Generator object.
class HETERO_API Generator {
 public:
  /// A generator seeded with `seed`, at offset 0.
  explicit Generator(std::uint64_t seed = kDefaultSeed) noexcept : state_{seed, 0} {}
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  /// Seeds it and rewinds the stream (offset 0), as torch.Generator.manual_seed.
  void manual_seed(std::uint64_t seed);
  /// The seed, as torch.Generator.initial_seed.
  std::uint64_t initial_seed() const;
  /// The seed and offset: restoring them with set_state() repeats the draws that followed.
  GeneratorState get_state() const;
  /// Restores a get_state() (torch.Generator.set_state).
  void set_state(const GeneratorState& state);
  /// Reserves `counters` counters: returns the seed and the offset of the first, and
  /// advances the offset (what rand/randn call; a backend draws from them).
  GeneratorState reserve(std::uint64_t counters);

 private:
  mutable std::mutex mutex_;
  GeneratorState state_;
};

/// The default generator of `device` (as torch.cuda.default_generators[i]): what rand and
/// randn without a generator draw from. manual_seed() seeds every device's. Valid for the
/// life of the process. InvalidDeviceError for a device that does not exist.
HETERO_API Generator& default_generator(const Device& device);

}  // namespace hetero
