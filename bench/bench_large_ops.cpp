// SPDX-License-Identifier: Apache-2.0
// Large-tensor kernels (issue #26): 4096 x 4096 float32 (64 MiB), hetero on cpu vs
// libtorch writing into a preallocated result (`*_out`: only the kernel) and libtorch
// allocating its result (as a user's code does). hetero always allocates (from its pool).
// Rows: "large/OP/hetero", "large/OP/libtorch_out", "large/OP/libtorch". The reductions
// are the ones issue #26 measured slowest (sum(0) 36x, max() 16x libtorch's time); add and
// exp are the element-wise reference rows; transpose is x.t().contiguous() (3.3x); tanh,
// sigmoid, relu, x * 2, softmax(1) and the float16/bfloat16 casts are the rest of issue
// #26's table, with float16 rows where libtorch has float16 kernels. "large/OP/raw" is the
// floor of a bandwidth-bound row: its job as a plain vectorised loop on the same threads, or
// memcpy for the copies (raw_floor.hpp). Run on a quiet machine: bench/run interleaves the
// rows at random.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "common.hpp"
#include "raw_floor.hpp"
#if HETERO_BENCH_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace {

using namespace hetero;

void register_all() {
  const Device d("cpu");
  const Tensor x = rand({4096, 4096}), y = rand({4096, 4096});
  auto add = [&](const std::string& op, auto f) {
    bench::add("large/" + op + "/hetero", [d, f] {
      Tensor r = f();
      synchronize(d);
    });
#if HETERO_BENCH_HAVE_TORCH
    bench::add_peer("large/" + op + "/libtorch_out", bench::torch::large_op(op, true));
    bench::add_peer("large/" + op + "/libtorch", bench::torch::large_op(op, false));
#endif
    if (auto floor = bench::raw::floor(op)) bench::add("large/" + op + "/raw", std::move(floor));
  };
  add("sum", [x] { return x.sum(); });
  add("sum0", [x] { return x.sum(0); });
  add("sum1", [x] { return x.sum(1); });
  add("max", [x] { return x.max(); });
  add("max0", [x] { return x.max(0); });
  add("argmax", [x] { return x.argmax(); });
  add("add", [x, y] { return x + y; });
  add("exp", [x] { return x.exp(); });
  add("tanh", [x] { return x.tanh(); });
  add("sigmoid", [x] { return x.sigmoid(); });
  add("relu", [x] { return x.relu(); });
  add("mul2", [x] { return x * 2.0; });
  add("softmax1", [x] { return softmax(x, 1); });
  add("softmax0", [x] { return softmax(x, 0); });
  add("to_float16", [x] { return x.to(DType::float16); });
  add("to_bfloat16", [x] { return x.to(DType::bfloat16); });
  const Tensor h = x.to(DType::float16);
  add("from_float16", [h] { return h.to(DType::float32); });
  add("transpose", [x] { return x.t().contiguous(); });
  // float16 operands and results, where libtorch 1.13's cpu kernels take float16 (its exp,
  // tanh, sigmoid, relu and softmax do not).
  const Tensor hy = y.to(DType::float16);
  add("add_f16", [h, hy] { return h + hy; });
  add("mul2_f16", [h] { return h * 2.0; });
  add("sum_f16", [h] { return h.sum(); });
  add("max_f16", [h] { return h.max(); });
  add("transpose_f16", [h] { return h.t().contiguous(); });
}

}  // namespace

int main(int argc, char** argv) {
#if HETERO_BENCH_HAVE_TORCH
  bench::torch::set_threads(bench::threads());
#endif
  register_all();
  return bench::run(argc, argv);
}
