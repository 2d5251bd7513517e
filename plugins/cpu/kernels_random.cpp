// Counter-based random numbers: element i of a call takes counter c = offset + i (uniform)
// or the pair (offset + 2i, offset + 2i + 1) (normal, Box-Muller), hashed with the seed
// by the SplitMix64 finaliser (Steele, Lea, Flood 2014). Results depend only on (seed,
// offset, i), never on threads.
#include <cmath>
#include <numbers>
#include <type_traits>

#include "kernels.hpp"

namespace hetero::cpu::kernels {
namespace {

std::uint64_t mix(std::uint64_t seed, std::uint64_t counter) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + counter * 0xBF58476D1CE4E5B9ULL + 0x94D049BB133111EBULL;
  for (int round = 0; round < 2; ++round) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
  }
  return z;
}

// Uniform on [0, 1) with the type's full mantissa.
template <class T>
T uniform(std::uint64_t bits) {
  if constexpr (std::is_same_v<T, float>) return static_cast<float>(bits >> 40) * 0x1.0p-24f;
  else return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

}  // namespace

void random(RandomDistribution dist, const StridedView& out, std::uint64_t seed, std::uint64_t offset) {
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_floating_point_v<T>) {
      throw DTypeError("cpu backend: random needs a floating dtype");
    } else {
      T* dst = data_of<T>(out);
      // Rows are visited in C order; `row_start` counts elements before each row. Rows
      // must be numbered, so the loop runs serially here and parallel inside a row.
      std::int64_t row_start = 0;
      for_each_row<1>({&out}, [&](auto off, std::int64_t n, auto st) {
        const std::int64_t first = row_start;
        parallel_range(n, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
          const auto k = static_cast<std::uint64_t>(first + i);
          T v;
          if (dist == RandomDistribution::uniform) {
            v = uniform<T>(mix(seed, offset + k));
          } else {
            const double u1 = 1.0 - uniform<double>(mix(seed, offset + 2 * k));  // (0, 1]
            const double u2 = uniform<double>(mix(seed, offset + 2 * k + 1));
            v = static_cast<T>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
          }
          dst[off[0] + i * st[0]] = v;
        }
        });
        row_start += n;
      }, /*allow_parallel=*/false);
    }
  });
}

}  // namespace hetero::cpu::kernels
