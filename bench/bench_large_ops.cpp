// Large-tensor kernels (issue #26): 4096 x 4096 float32 (64 MiB), hetero on cpu vs
// libtorch writing into a preallocated result (`*_out`: only the kernel) and libtorch
// allocating its result (as a user's code does). hetero always allocates (from its pool).
// Rows: "large/OP/hetero", "large/OP/libtorch_out", "large/OP/libtorch". The reductions
// are the ones issue #26 measured slowest (sum(0) 36x, max() 16x libtorch's time); add and
// exp are the element-wise reference rows; transpose is x.t().contiguous() (3.3x). Run on a quiet
// machine: bench/run interleaves the rows at random.
#include <string>

#include "common.hpp"
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
    bench::add("large/" + op + "/libtorch_out", bench::torch::large_op(op, true));
    bench::add("large/" + op + "/libtorch", bench::torch::large_op(op, false));
#endif
  };
  add("sum", [x] { return x.sum(); });
  add("sum0", [x] { return x.sum(0); });
  add("sum1", [x] { return x.sum(1); });
  add("max", [x] { return x.max(); });
  add("max0", [x] { return x.max(0); });
  add("argmax", [x] { return x.argmax(); });
  add("add", [x, y] { return x + y; });
  add("exp", [x] { return x.exp(); });
  add("transpose", [x] { return x.t().contiguous(); });
}

}  // namespace

int main(int argc, char** argv) {
#if HETERO_BENCH_HAVE_TORCH
  bench::torch::set_threads(bench::threads());
#endif
  register_all();
  return bench::run(argc, argv);
}
