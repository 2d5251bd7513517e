// SPDX-License-Identifier: Apache-2.0
// random(): element i in C order takes value i of the counter-based stream defined in
// <hetero/sdk/counter_rng.hpp>, so results depend only on (seed, offset, i), never on
// threads, and equal those of every other backend using that header.
#include <type_traits>

#include <hetero/internal_assert.hpp>
#include <hetero/sdk/counter_rng.hpp>

#include "kernels.hpp"
#include "vector_kernels.hpp"

namespace hetero::cpu::kernels {

void random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
            std::uint64_t offset) {
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_floating_point_v<T>) {
      HETERO_INTERNAL_ASSERT(false,
                             "cpu backend: random() of " + std::string(dtype_name(out.dtype)));
    } else {
      T* dst = data_of<T>(out);
      // Rows are visited in C order; `row_start` counts elements before each row. Rows
      // must be numbered, so the loop runs serially here and parallel inside a row.
      std::int64_t row_start = 0;
      for_each_row<1>(
          {&out},
          [&](auto off, std::int64_t n, auto st) {
            const std::int64_t first = row_start;
            parallel_range(n, 1, [&](std::int64_t begin, std::int64_t end) {
              // A dense run: the vector kernel (the same stream, Philox in vector lanes)
              if (st[0] == 1 &&
                  vec::random(dist, out.dtype, dst + off[0] + begin, end - begin, seed, offset,
                              static_cast<std::uint64_t>(first + begin)))
                return;
              for (std::int64_t i = begin; i < end; ++i) {
                const auto k = static_cast<std::uint64_t>(first + i);
                dst[off[0] + i * st[0]] = dist == RandomDistribution::uniform
                                              ? rng::uniform_at<T>(seed, offset, k)
                                              : static_cast<T>(rng::normal_at(seed, offset, k));
              }
            });
            row_start += n;
          },
          /*allow_parallel=*/false);
    }
  });
}

}  // namespace hetero::cpu::kernels
