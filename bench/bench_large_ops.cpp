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
// rows at random. `--paired [ROUNDS]` instead times each row's sides back to back and
// prints ratios of paired samples (run_paired()); `--only TEXT` keeps the rows whose op
// contains TEXT. `--device DEV` (e.g. cuda:0) runs hetero's side of the same rows on DEV
// instead, as a --paired table (10 rounds unless given) with no in-process peer: each
// sample is kCallsOffCpu ops queued back to back and one synchronize(), per op, so the
// host's launch cost overlaps the device's work as in a user's loop;
// bench/torch_large_ops.py prints PyTorch's side (same row names, same method) and
// bench/report.py --join-large-ops sets the two tables side by side.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "raw_floor.hpp"
#if HETERO_BENCH_HAVE_TORCH
#include "torch_peer.hpp"
#endif

namespace {

using namespace hetero;

// Ops per timed call off the cpu (queued, then one synchronize()): 20 ops of 64 MiB take
// ~1 ms on an H100, against ~5 us of host cost per launch.
constexpr int kCallsOffCpu = 20;

// One side of a row: a closure running the op `calls` times (hetero's ends with
// synchronize()), made on first use. A process times only the rows its filter selects
// (bench/alone.py runs one implementation per process); making every row's libtorch and raw
// operands up front took ~30 s and 3.6 GB before the first selected row ran.
class Side {
 public:
  Side(std::string name, std::function<std::function<void()>()> make)
      : name_(std::move(name)), make_(std::make_shared<Make>(std::move(make))) {}
  const std::string& name() const { return name_; }
  /// The closure, made by the first call (outside any timed loop).
  const std::function<void()>& op() const {
    if (!*op_) *op_ = (*make_)();
    return *op_;
  }

 private:
  using Make = std::function<std::function<void()>()>;
  std::string name_;
  std::shared_ptr<Make> make_;
  std::shared_ptr<std::function<void()>> op_ = std::make_shared<std::function<void()>>();
};

// One row: its op name and its sides ("hetero", "libtorch_out", "libtorch", "raw").
struct Row {
  std::string op;
  std::vector<Side> sides;
  int calls = 1;
};

// The rows on device `d`: the in-process peers (libtorch, the raw loops) only on the cpu.
std::vector<Row> rows(const Device& d) {
  const bool on_cpu = d.type() == "cpu";
  const int calls = on_cpu ? 1 : kCallsOffCpu;
  // The same values on every device: drawn on the cpu, then copied.
  const Tensor x = rand({4096, 4096}).to(d), y = rand({4096, 4096}).to(d);
  std::vector<Row> out;
  auto add = [&](const std::string& op, auto f) {
    Row row{op, {}, calls};
    row.sides.emplace_back("hetero", [d, f, calls] {
      return std::function<void()>([d, f, calls] {
        for (int c = 0; c < calls; ++c) Tensor r = f();
        synchronize(d);
      });
    });
    if (!on_cpu) {
      out.push_back(std::move(row));
      return;
    }
#if HETERO_BENCH_HAVE_TORCH
    for (const bool into_out : {true, false}) {
      row.sides.emplace_back(into_out ? "libtorch_out" : "libtorch", [op, into_out] {
        return std::function<void()>([f = bench::torch::large_op(op, into_out)] {
          const bench::PeerBlasThreads blas;
          f();
        });
      });
    }
#endif
    if (bench::raw::has_floor(op))
      row.sides.emplace_back("raw", [op] { return bench::raw::floor(op); });
    out.push_back(std::move(row));
  };
  add("sum", [x] { return x.sum(); });
  add("sum0", [x] { return x.sum(0); });
  add("sum1", [x] { return x.sum(1); });
  // Issue #49's reductions of a transposed view and argmax along the columns: x.t().sum(1) is
  // x.sum(0) read through the view's strides.
  add("sum_t1", [x] { return x.t().sum(1); });
  add("max_t1", [x] { return x.t().max(1); });
  add("argmax0", [x] { return x.argmax(0); });
  add("max", [x] { return x.max(); });
  add("max0", [x] { return x.max(0); });
  add("argmax", [x] { return x.argmax(); });
  // The same 64 MiB as 262,144 rows of 64 (a layer's features, a mean over 8x8 planes):
  // a reduction per short row, where a call per row costs as much as its sum.
  const Tensor rows64 = x.view({262144, 64});
  add("mean_rows64", [rows64] { return rows64.mean(1); });
  add("max_rows64", [rows64] { return rows64.max(1); });
  add("argmax_rows64", [rows64] { return rows64.argmax(1); });
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
  // The generators (the counter stream of <hetero/sdk/counter_rng.hpp>; libtorch's
  // uniform_ and normal_ into `out`): weight initialisation, dropout masks, noise.
  add("rand", [d] { return rand({4096, 4096}, TensorOptions(d)); });
  add("randn", [d] { return randn({4096, 4096}, TensorOptions(d)); });
  add("transpose_f16", [h] { return h.t().contiguous(); });
  // Integer sums, int64 results as torch.sum's (values 0..99).
  const Tensor xi = (x * 100.0).to(DType::int32), xu = (x * 100.0).to(DType::uint8);
  add("sum_i32", [xi] { return xi.sum(); });
  add("sum_u8", [xu] { return xu.sum(); });
  synchronize(d);  // the operands made, so that no row's first timed call waits for them
  return out;
}

std::string fmt_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ms);
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// --paired: every row's sides timed back to back, `rounds` times (the order reversed every
// other round), each sample the best of 3 calls; a ratio is the median over the rounds of
// that round's ratio, so that both sides of a ratio see the same state of a shared machine
// (the "alternating the two sides"), which Google Benchmark's repetitions, seconds
// apart, do not: on this machine a bandwidth-bound row's best time moves 1.4-2.7 ms between
// minutes. Prints a Markdown table, milliseconds per op. A row whose op hetero cannot run on
// the device prints its error in place of the times (hetero::Error), and the rest go on.
int run_paired(const std::vector<Row>& table, int rounds) {
  using clock = std::chrono::steady_clock;
  std::printf(
      "| op | hetero ms | libtorch_out ms | libtorch ms | raw ms | hetero / libtorch_out | hetero "
      "/ raw |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& row : table) {
    std::map<std::string, std::vector<double>> ms;
    std::vector<double> vs_out, vs_raw;
    try {
      for (const Side& side : row.sides) side.op()();  // warm-up: pages, pools, threads
    } catch (const Error& e) {
      std::printf("| %s | not run: %s | | | | | |\n", row.op.c_str(), e.what());
      std::fflush(stdout);
      continue;
    }
    for (int r = 0; r < rounds; ++r) {
      std::map<std::string, double> best;
      for (std::size_t k = 0; k < row.sides.size(); ++k) {
        const Side& side = row.sides[r % 2 ? row.sides.size() - 1 - k : k];
        const std::string& name = side.name();
        const std::function<void()>& f = side.op();
        double b = 1e30;
        for (int call = 0; call < 3; ++call) {
          const auto t0 = clock::now();
          f();
          b = std::min(
              b, std::chrono::duration<double, std::milli>(clock::now() - t0).count() / row.calls);
        }
        best[name] = b;
        ms[name].push_back(b);
      }
      if (best.count("libtorch_out")) vs_out.push_back(best["hetero"] / best["libtorch_out"]);
      if (best.count("raw")) vs_raw.push_back(best["hetero"] / best["raw"]);
    }
    auto cell = [&](const char* name) {
      return ms.count(name) ? fmt_ms(median(ms[name])) : std::string("-");
    };
    auto ratio = [](const std::vector<double>& v) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", median(v));
      return v.empty() ? std::string("-") : std::string(buf);
    };  // of the per-round ratios
    std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", row.op.c_str(), cell("hetero").c_str(),
                cell("libtorch_out").c_str(), cell("libtorch").c_str(), cell("raw").c_str(),
                ratio(vs_out).c_str(), ratio(vs_raw).c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
#if HETERO_BENCH_HAVE_TORCH
  bench::torch::set_threads(bench::threads());
#endif
  int rounds = 0;  // --paired [ROUNDS] [--only TEXT]: the rows whose op contains TEXT
  std::string only, device = "cpu";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--paired") == 0)
      rounds = i + 1 < argc && std::atoi(argv[i + 1]) > 0 ? std::atoi(argv[i + 1]) : 25;
    if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[i + 1];
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) device = argv[i + 1];
  }
  std::vector<Row> table;
  try {
    const Device d(device);
    if (d.type() != "cpu" && rounds == 0) rounds = 10;  // off the cpu: the table only
    table = rows(d);
    if (d.type() != "cpu")
      std::printf("device: %s (%s)\n\n", device.c_str(), device_info(d).properties.name.c_str());
  } catch (const InvalidDeviceError& e) {  // not a device string: a usage error
    std::fprintf(stderr, "bench_large_ops: --device %s: %s\n", device.c_str(), e.what());
    return 2;
  } catch (const Error& e) {  // no such device here, or none of that type: nothing to measure
    std::printf("bench_large_ops: no %s here (%s); nothing to measure\n", device.c_str(), e.what());
    return 0;
  }
  if (rounds > 0) {
    std::erase_if(table, [&](const Row& r) { return r.op.find(only) == std::string::npos; });
    return run_paired(table, rounds);
  }
  for (const Row& row : table)
    for (const Side& side : row.sides)
      bench::timed(benchmark::RegisterBenchmark(("large/" + row.op + "/" + side.name()).c_str(),
                                                [side](benchmark::State& state) {
                                                  const std::function<void()>& f = side.op();
                                                  for (auto _ : state) f();
                                                }));
  return bench::run(argc, argv);
}
