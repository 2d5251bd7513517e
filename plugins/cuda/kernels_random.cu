// SPDX-License-Identifier: Apache-2.0
// random(): element i in C order takes value i of the counter-based stream of
// <hetero/sdk/counter_rng.hpp>, the same numbers the cpu backend gives for the same
// (seed, offset): a seed reproduces a tensor on any device and any launch shape.
#include <hetero/internal_assert.hpp>
#include <hetero/sdk/counter_rng.hpp>

#include "kernels.cuh"
#include "kernels.hpp"

namespace hetero::cuda::kernels {
namespace {

template <class T>
__global__ void random_kernel(RandomDistribution dist, T* out, OffsetCalc<1> calc, std::int64_t n,
                              std::uint64_t seed, std::uint64_t offset) {
  HETERO_GRID_STRIDE_LOOP(i, n) {
    std::int64_t off[1];
    calc.offsets(i, off);
    const auto k = static_cast<std::uint64_t>(i);
    out[off[0]] = dist == RandomDistribution::uniform
                      ? rng::uniform_at<T>(seed, offset, k)
                      : static_cast<T>(rng::normal_at(seed, offset, k));
  }
}

}  // namespace

void random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
            std::uint64_t offset, cudaStream_t stream) {
  const std::int64_t n = out.numel();
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_floating_point_v<T>) {
      HETERO_INTERNAL_ASSERT(false,
                             "cuda backend: random() of " + std::string(dtype_name(out.dtype)));
    } else {
      if (n == 0) return;
      const StridedView* views[1] = {&out};
      random_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
          dist, data_of<T>(out), make_offset_calc(views), n, seed, offset);
      HETERO_CUDA_CHECK_LAUNCH();
    }
  });
}

}  // namespace hetero::cuda::kernels
