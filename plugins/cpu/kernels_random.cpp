// SPDX-License-Identifier: Apache-2.0
// random(): element i in C order takes value i of the counter-based stream defined in
// <hetero/sdk/counter_rng.hpp>, so results depend only on (seed, offset, i), never on
// threads, and equal those of every other backend using that header.
#include <algorithm>
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
              T* const row = dst + off[0];
              const std::int64_t step = st[0];
              // The vector kernel where it has the distribution on this CPU: dense runs
              // directly, strided ones through a block, so that each value comes from the
              // same code whatever the layout and the split (vector_random.cpp, fill).
              constexpr std::int64_t kBlock = 256;
              T block[kBlock];
              for (std::int64_t i = begin; i < end; i += kBlock) {
                const std::int64_t m = std::min(kBlock, end - i);
                const auto k = static_cast<std::uint64_t>(first + i);
                T* const into = step == 1 ? row + i : block;
                if (!vec::random(dist, out.dtype, into, m, seed, offset, k)) break;
                if (step != 1)
                  for (std::int64_t j = 0; j < m; ++j) row[(i + j) * step] = block[j];
                if (i + m == end) return;
              }
              for (std::int64_t i = begin; i < end; ++i) {  // no vector kernel: scalar
                const auto k = static_cast<std::uint64_t>(first + i);
                row[i * step] = dist == RandomDistribution::uniform
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
