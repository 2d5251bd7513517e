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
  const auto* idx = data_of<std::int64_t>(index);
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* o = data_of<T>(out);
    const T* s = data_of<T>(src);
    // Fibers write disjoint elements, so rows of them run on different threads (the loop's
    // odometer finds each fiber's offsets without a division per fiber: max_pool2d's gradient
    // scatters fibers of one element). Within a row the position along dim is the outer loop
    // (neighbouring fibers are usually neighbours in memory: an embedding's gradient adds
    // whole rows) and each element receives its additions in order along dim, as the
    // contract asks.
    for_each_row<3>(
        {&f.out, &f.index, &f.src},
        [&](auto off, std::int64_t n, auto st) {
          for (std::int64_t i = 0; i < f.length; ++i) {
            const std::int64_t* pi = idx + off[1] + i * f.index_stride;
            const T* ps = s + off[2] + i * f.src_stride;
            for (std::int64_t k = 0; k < n; ++k) {
              T& target = o[off[0] + k * st[0] + pi[k * st[1]] * f.out_stride];
              target = scatter_add_element(target, ps[k * st[2]]);
            }
          }
        },
        true, f.length);
  });
}

}  // namespace hetero::cpu::kernels
