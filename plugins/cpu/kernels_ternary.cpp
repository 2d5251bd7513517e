// SPDX-License-Identifier: Apache-2.0
// The ternary kernels (where; see kernels_unary.cpp).
#include <type_traits>

#include <hetero/sdk/elementwise_ops.hpp>

#include "kernels.hpp"

namespace hetero::cpu::kernels {

void ternary(TernaryOp op, const StridedView& c, const StridedView& x, const StridedView& y,
             const StridedView& out) {
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    visit_ternary(op, [&](auto code) {
      constexpr TernaryOp Op = decltype(code)::value;
      const T* pc = data_of<T>(c);
      const T* px = data_of<T>(x);
      const T* py = data_of<T>(y);
      T* po = data_of<T>(out);
      for_each_row<4>({&out, &c, &x, &y}, [&](auto off, std::int64_t n, auto st) {
        T* o = po + off[0];
        const T* cc = pc + off[1];
        const T* xx = px + off[2];
        const T* yy = py + off[3];
        const auto unit = [](std::int64_t s) { return s == 0 || s == 1; };
        if (st[0] == 1 && unit(st[1]) && unit(st[2]) && unit(st[3])) {
          // Dense operands and broadcast scalars (where(c, 0.0, g): ReLU's gradient), each
          // stride a constant of the loop, so that it vectorises; 3 ns per element through
          // the general loop below, for the 0-stride operand's multiply and the gather.
          const auto run = [&](auto sc, auto sx, auto sy) {
            for (std::int64_t i = 0; i < n; ++i)
              o[i] = ternary_element<Op>(cc[i * sc], xx[i * sx], yy[i * sy]);
          };
          using Zero = std::integral_constant<std::int64_t, 0>;
          using One = std::integral_constant<std::int64_t, 1>;
          const auto pick = [&](std::int64_t s, auto&& then) {
            return s == 0 ? then(Zero{}) : then(One{});
          };
          pick(st[1], [&](auto sc) {
            pick(st[2], [&](auto sx) { pick(st[3], [&](auto sy) { run(sc, sx, sy); }); });
          });
        } else {
          for (std::int64_t i = 0; i < n; ++i)
            o[i * st[0]] = ternary_element<Op>(cc[i * st[1]], xx[i * st[2]], yy[i * st[3]]);
        }
      });
    });
  });
}

}  // namespace hetero::cpu::kernels
