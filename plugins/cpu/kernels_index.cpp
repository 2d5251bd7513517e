// SPDX-License-Identifier: Apache-2.0
// gather and scatter_add (Backend::gather / scatter_add, interface minor 6).
#include <algorithm>
#include <array>
#include <cstdint>

#include <hetero/sdk/elementwise_ops.hpp>

#include "kernels.hpp"

namespace hetero::cpu::kernels {

void gather(const StridedView& src, const StridedView& index, int dim, const StridedView& out) {
  const GatherViews g = gather_views(src, out, dim);
  const auto* idx = data_of<std::int64_t>(index);
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* s = data_of<T>(src);
    T* o = data_of<T>(out);
    // out, index and the line starts share out's shape: an element-wise loop, rows spread
    // over the kernel threads (each element of out is written once).
    for_each_row<3>({&out, &index, &g.start}, [&](auto off, std::int64_t n, auto st) {
      T* po = o + off[0];
      const std::int64_t* pi = idx + off[1];
      const T* ps = s + off[2];
      for (std::int64_t i = 0; i < n; ++i)
        po[i * st[0]] = ps[i * st[2] + pi[i * st[1]] * g.dim_stride];
    });
  });
}

void scatter_add(const StridedView& out, const StridedView& index, int dim,
                 const StridedView& src) {
  const ScatterFibers f = scatter_fibers(out, index, src, dim);
  const std::int64_t fibers = f.out.numel();
  const auto* idx = data_of<std::int64_t>(index);
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* o = data_of<T>(out);
    const T* s = data_of<T>(src);
    // Fibers write disjoint elements, so blocks of them run on different threads; within a
    // block, the position along dim is the outer loop (neighbouring fibers are usually
    // neighbours in memory: an embedding's gradient adds whole rows) and each element
    // receives its additions in order along dim, as the contract asks.
    constexpr std::int64_t kBlock = 64;
    const std::int64_t blocks = (fibers + kBlock - 1) / kBlock;
    parallel_range(blocks, kBlock * f.length, [&](std::int64_t begin, std::int64_t end) {
      std::array<std::int64_t, kBlock> oo{}, io{}, so{};
      for (std::int64_t b = begin; b < end; ++b) {
        const std::int64_t first = b * kBlock, count = std::min(kBlock, fibers - first);
        for (std::int64_t k = 0; k < count; ++k) {
          oo[k] = f.out.element_offset(first + k);
          io[k] = f.index.element_offset(first + k);
          so[k] = f.src.element_offset(first + k);
        }
        for (std::int64_t i = 0; i < f.length; ++i)
          for (std::int64_t k = 0; k < count; ++k) {
            T& target = o[oo[k] + idx[io[k] + i * f.index_stride] * f.out_stride];
            target = scatter_add_element(target, s[so[k] + i * f.src_stride]);
          }
      }
    });
  });
}

}  // namespace hetero::cpu::kernels
