// SPDX-License-Identifier: Apache-2.0
// hetero::distributed against raw MPI, run under `mpirun -np N` (bench/run does -np 1 and
// -np 2). Prints Markdown tables (rank 0):
//  1. all_reduce(sum) of a contiguous float32 cpu tensor vs MPI_Allreduce(MPI_IN_PLACE) on
//     the same buffer, alternated in rounds, median and spread per size: time, algorithm
//     bandwidth (bytes / time) and the ratio raw time / hetero time (target >= 0.9 from
//     1 MiB), in the group configuration --config names (default; check-off: no consistency
//     check; no-timeout: the calls run on the caller's thread instead of the communication
//     thread), one configuration per process (bench/run starts one mpirun for each);
//     then 16 all-reduces of 4 KiB blocking, and launched asynchronously then waited for;
//  2. all_reduce_gradients of an MLP's gradients against one raw MPI_Allreduce of the same
//     bytes (issue #50 item 7; --tables gradients prints only this);
//  3. the data-parallel training step of an MLP (64 -> 512 -> 512 -> 10, SGD, batch
//     per rank) with all_reduce_gradients, and the share of it spent averaging gradients.
//   mpirun -np 2 bench_distributed [--rounds 15] [--device cpu] [--config default]
//                                  [--tables all|collectives|gradients|steps]
#include <mpi.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <hetero/distributed.hpp>
#include <hetero/hetero.hpp>

using namespace hetero;
namespace dist = hetero::distributed;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds per call of `op`, `reps` calls after a barrier; the slowest rank's time.
double seconds_per_call(const std::function<void()>& op, int reps) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) op();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps;
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return s;
}

// "median (min-max)" of per-call seconds, in us (or ms).
std::string spread_us(std::vector<double> v, bool ms = false) {
  std::sort(v.begin(), v.end());
  const double scale = ms ? 1e3 : 1e6;
  char text[96];
  std::snprintf(text, sizeof text, ms ? "%.3f ms (%.3f-%.3f)" : "%.1f us (%.1f-%.1f)",
                median(v) * scale, v.front() * scale, v.back() * scale);
  return text;
}

// all_reduce(sum) of one float32 cpu tensor per size against MPI_Allreduce(MPI_IN_PLACE) of
// the same buffer, alternated in rounds, in this process's group configuration only (issue
// #50 item 8: each configuration in its own process, not groups made one after another).
void all_reduce_table(int rounds, const std::string& config) {
  const int world = dist::world_size();
  if (dist::rank() == 0) {
    std::printf(
        "\n### all_reduce(sum), float32 cpu tensor, %d processes, group %s (median (min-max) of "
        "%d alternated rounds)\n\n",
        world, config.c_str(), rounds);
    std::printf("| bytes | raw MPI_Allreduce | hetero | GB/s raw | GB/s hetero | ratio |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|\n");
  }
  for (std::int64_t bytes :
       {std::int64_t{4} << 10, std::int64_t{64} << 10, std::int64_t{1} << 20, std::int64_t{4} << 20,
        std::int64_t{16} << 20, std::int64_t{64} << 20}) {
    const std::int64_t n = bytes / 4;
    Tensor t = ones({n});
    void* buffer = t.host_data_ptr();
    const int reps =
        static_cast<int>(std::clamp<std::int64_t>((std::int64_t{64} << 20) / bytes, 2, 200));
    std::vector<double> raw, mine;
    auto raw_op = [&] {
      MPI_Allreduce(MPI_IN_PLACE, buffer, static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    };
    auto hetero_op = [&] { dist::all_reduce(t); };
    for (int r = 0; r < rounds; ++r) {
      raw.push_back(seconds_per_call(raw_op, reps));
      mine.push_back(seconds_per_call(hetero_op, reps));
    }
    const double tr = median(raw), th = median(mine);
    if (dist::rank() == 0)
      std::printf("| %lld | %s | %s | %.2f | %.2f | %.2f |\n", static_cast<long long>(bytes),
                  spread_us(raw).c_str(), spread_us(mine).c_str(), bytes / tr / 1e9,
                  bytes / th / 1e9, tr / th);
  }
}

// Batching small collectives (issue #50 item 8): 16 all_reduce(sum) of 4 KiB each, blocking
// one after another, against the same 16 launched with async_op and waited for at the end
// (the hand-offs to the communication thread overlap), and 16 raw MPI_Allreduce calls.
void batching_table(int rounds, const std::string& config) {
  constexpr int calls = 16;
  constexpr std::int64_t n = 1024;  // 4 KiB of float32
  std::vector<Tensor> ts;
  for (int i = 0; i < calls; ++i) ts.push_back(ones({n}));
  std::vector<double> raw, blocking, batched;
  auto raw_op = [&] {
    for (Tensor& t : ts)
      MPI_Allreduce(MPI_IN_PLACE, t.host_data_ptr(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
  };
  auto blocking_op = [&] {
    for (Tensor& t : ts) dist::all_reduce(t);
  };
  auto batched_op = [&] {
    std::vector<dist::Work> works;
    for (Tensor& t : ts) works.push_back(dist::all_reduce(t, dist::ReduceOp::sum, dist::async_op));
    for (dist::Work& w : works) w.wait();
  };
  for (int r = 0; r < rounds; ++r) {
    raw.push_back(seconds_per_call(raw_op, 50));
    blocking.push_back(seconds_per_call(blocking_op, 50));
    batched.push_back(seconds_per_call(batched_op, 50));
  }
  if (dist::rank() != 0) return;
  std::printf(
      "\n### %d all_reduce(sum) of 4 KiB, %d processes, group %s (median (min-max) of %d "
      "alternated rounds)\n\n",
      calls, dist::world_size(), config.c_str(), rounds);
  std::printf(
      "| raw MPI_Allreduce x%d | blocking x%d | async x%d, then wait | raw / blocking | "
      "raw / async |\n|---:|---:|---:|---:|---:|\n",
      calls, calls, calls);
  std::printf("| %s | %s | %s | %.2f | %.2f |\n", spread_us(raw).c_str(),
              spread_us(blocking).c_str(), spread_us(batched).c_str(),
              median(raw) / median(blocking), median(raw) / median(batched));
}

// Seconds of `op` per call, `reps` calls, each after `prepare` (untimed) and a barrier; the
// slowest rank's total.
double seconds_per_prepared_call(const std::function<void()>& prepare,
                                 const std::function<void()>& op, int reps) {
  double s = 0;
  for (int i = 0; i < reps; ++i) {
    prepare();
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    op();
    s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  s /= reps;
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return s;
}

// Issue #50 item 7: all_reduce_gradients of the step table's MLP (64-512-512-10, 301,066
// float32 parameters, one bucket) against one raw MPI_Allreduce(MPI_IN_PLACE) of the same
// bytes, and against that all-reduce plus one pass dividing the result (the floor of the
// design before: divide after the sum). Before every call the gradients (and the raw
// buffer) are written anew on this rank, as backward() writes them, untimed.
void gradient_table(int rounds) {
  const int world = dist::world_size();
  manual_seed(0);
  nn::Sequential net{nn::Linear(64, 512), nn::ReLU(), nn::Linear(512, 512), nn::ReLU(),
                     nn::Linear(512, 10)};
  net(randn({128, 64})).sum().backward();
  std::vector<Tensor> params, grads;
  std::int64_t elements = 0;
  for (const Tensor& p : net.parameters()) {
    params.push_back(p);
    grads.push_back(p.grad().clone());
    elements += p.numel();
  }
  std::vector<float> flat(static_cast<std::size_t>(elements));
  const float inverse = 1.0f / static_cast<float>(world);
  auto fresh_grads = [&] {
    for (std::size_t i = 0; i < params.size(); ++i) params[i].mutable_grad() = grads[i].clone();
  };
  auto fresh_flat = [&] {
    for (std::size_t i = 0; i < flat.size(); ++i) flat[i] = static_cast<float>(i % 97) * 0.01f;
  };
  auto raw = [&] {
    MPI_Allreduce(MPI_IN_PLACE, flat.data(), static_cast<int>(flat.size()), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
  };
  auto raw_divided = [&] {
    raw();
    for (float& x : flat) x *= inverse;
  };
  auto reduce = [&] { dist::all_reduce_gradients(net); };
  std::vector<double> t_raw, t_divided, t_hetero;
  for (int r = 0; r < rounds; ++r) {
    t_raw.push_back(seconds_per_prepared_call(fresh_flat, raw, 30));
    t_divided.push_back(seconds_per_prepared_call(fresh_flat, raw_divided, 30));
    t_hetero.push_back(seconds_per_prepared_call(fresh_grads, reduce, 30));
  }
  if (dist::rank() != 0) return;
  std::printf(
      "\n### Gradient averaging: all_reduce_gradients of an MLP 64-512-512-10 (%lld float32 "
      "parameters, %.2f MiB, one bucket), %d processes, cpu (median (min-max) of %d alternated "
      "rounds of 30 calls)\n\n",
      static_cast<long long>(elements), static_cast<double>(elements) * 4 / (1 << 20), world,
      rounds);
  std::printf(
      "| raw MPI_Allreduce (sum) | raw + a pass x *= 1/world | all_reduce_gradients | "
      "raw / all_reduce_gradients | (raw + pass) / all_reduce_gradients |\n"
      "|---:|---:|---:|---:|---:|\n");
  std::printf("| %s | %s | %s | %.2f | %.2f |\n", spread_us(t_raw).c_str(),
              spread_us(t_divided).c_str(), spread_us(t_hetero).c_str(),
              median(t_raw) / median(t_hetero), median(t_divided) / median(t_hetero));
}

// One MLP training step five ways, alternated in rounds: no gradient averaging (the
// compute alone); all_reduce_gradients after backward (sequential); DistributedDataParallel
// with its default Overlap::automatic (buckets reduced while backward runs where the
// communication has a core of its own, issue #29; else started in wait(): Note [When buckets
// start]) and with Overlap::always (torch's timing); and the floor: the compute plus one raw
// MPI_Allreduce of the same gradient bytes from a ready flat buffer (no packing, no check).
void training_step_table(int rounds, const Device& d, std::size_t bucket_bytes, std::int64_t hidden,
                         int hidden_layers) {
  const int world = dist::world_size();
  const std::int64_t batch = 128;
  auto make = [&] {
    manual_seed(0);
    nn::Sequential net;
    net.push_back(std::make_shared<nn::Linear>(64, hidden));
    net.push_back(std::make_shared<nn::ReLU>());
    for (int l = 1; l < hidden_layers; ++l) {
      net.push_back(std::make_shared<nn::Linear>(hidden, hidden));
      net.push_back(std::make_shared<nn::ReLU>());
    }
    net.push_back(std::make_shared<nn::Linear>(hidden, 10));
    net.to(d);
    return net;
  };
  // One replica per DDP variant (each registers its hooks on its own parameters).
  struct Replica {
    nn::Sequential net;
    dist::DistributedDataParallel ddp;
    optim::SGD sgd;
    Replica(nn::Sequential made, const dist::DataParallelOptions& options)
        : net(std::move(made)), ddp(net, options), sgd(net.parameters(), {.lr = 0.01}) {}
  };
  nn::Sequential net = make();
  dist::broadcast_parameters(net);
  optim::SGD sgd(net.parameters(), {.lr = 0.01});
  Replica automatic(make(), {.bucket_bytes = bucket_bytes});
  Replica always(make(), {.bucket_bytes = bucket_bytes, .overlap = dist::Overlap::always});
  const dist::DistributedDataParallel& ddp = automatic.ddp;
  nn::CrossEntropyLoss criterion;
  const Tensor x = randn({batch, 64}, d);
  std::vector<std::int64_t> labels(static_cast<std::size_t>(batch));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int64_t>(i % 10);
  const Tensor y = from_vector(labels, {batch}, d);
  std::int64_t parameters = 0;
  for (const Tensor& p : net.parameters()) parameters += p.numel();
  std::vector<float> flat(static_cast<std::size_t>(parameters), 1.0f);
  enum class Sync { none, sequential, ddp, raw, ddp_always };
  auto step = [&](Sync sync) {
    Replica* replica = sync == Sync::ddp          ? &automatic
                       : sync == Sync::ddp_always ? &always
                                                  : nullptr;
    nn::Module& m = replica ? static_cast<nn::Module&>(replica->net) : net;
    optim::SGD& opt = replica ? replica->sgd : sgd;
    const Tensor loss = criterion(m.forward(x), y);
    opt.zero_grad();
    loss.backward();
    if (sync == Sync::sequential) dist::all_reduce_gradients(net, bucket_bytes);
    if (replica) replica->ddp.wait();
    if (sync == Sync::raw)
      MPI_Allreduce(MPI_IN_PLACE, flat.data(), static_cast<int>(flat.size()), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
    opt.step();
    synchronize(d);
  };
  std::vector<double> t[5];
  for (int r = 0; r < rounds; ++r)
    for (Sync s : {Sync::none, Sync::sequential, Sync::ddp, Sync::raw, Sync::ddp_always})
      t[static_cast<int>(s)].push_back(seconds_per_call([&] { step(s); }, 20));
  const double seq = median(t[1]), ov = median(t[2]), raw = median(t[3]);
  if (dist::rank() == 0) {
    std::printf(
        "\n### Data-parallel step, MLP 64-%lldx%d-10 (%lld parameters, %.2f MiB of float32 "
        "gradients), batch %lld per rank on %s, buckets of %.2f MiB (%zu); DDP's default "
        "overlaps here: %s\n\n",
        static_cast<long long>(hidden), hidden_layers, static_cast<long long>(parameters),
        static_cast<double>(parameters) * 4 / (1 << 20), static_cast<long long>(batch),
        d.str().c_str(), static_cast<double>(bucket_bytes) / (1 << 20), ddp.bucket_count(),
        ddp.overlaps() ? "yes" : "no");
    std::printf(
        "| processes | step, no averaging | all_reduce_gradients after backward | "
        "DistributedDataParallel (default) | DDP, Overlap::always | floor: step + raw "
        "MPI_Allreduce | sequential / floor | DDP / floor | DDP / sequential | samples/s with "
        "DDP (all ranks) |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::printf("| %d | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f | %.0f |\n", world,
                spread_us(t[0], true).c_str(), spread_us(t[1], true).c_str(),
                spread_us(t[2], true).c_str(), spread_us(t[4], true).c_str(),
                spread_us(t[3], true).c_str(), raw / seq, raw / ov, ov / seq,
                static_cast<double>(batch * world) / ov);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hetero::distributed vs raw MPI (run under mpirun)"};
  int rounds = 15;
  std::string device = "cpu", config = "default", tables = "all";
  app.add_option("--rounds", rounds, "alternated rounds per row (median, min-max)")
      ->check(CLI::PositiveNumber);
  app.add_option("--device", device, "device of the training step");
  app.add_option("--config", config,
                 "the process group's options: default, check-off (no consistency check) or "
                 "no-timeout (calls on the caller's thread); one per process")
      ->check(CLI::IsMember({"default", "check-off", "no-timeout"}));
  app.add_option("--tables", tables,
                 "all, collectives (all_reduce and batching), gradients (all_reduce_gradients "
                 "against raw) or steps (gradients and the training steps)")
      ->check(CLI::IsMember({"all", "collectives", "gradients", "steps"}));
  CLI11_PARSE(app, argc, argv);
  try {
    dist::ProcessGroupOptions options;
    if (config == "check-off") options.check_consistency = false;
    if (config == "no-timeout") options.timeout_seconds = 0;
    dist::init_process_group(options);
    if (tables == "all" || tables == "collectives") {
      all_reduce_table(rounds, config);
      batching_table(rounds, config);
    }
    if (tables != "collectives") gradient_table(rounds);  // all, gradients, steps
    if (tables == "all" || tables == "steps") {
      // One bucket (DDP's 25 MiB default) and buckets of a quarter of the gradients, which
      // the overlap needs to have several to start while backward runs.
      training_step_table(rounds, Device(device), dist::default_bucket_bytes, 512, 2);
      training_step_table(rounds, Device(device), std::size_t{300} << 10, 512, 2);
      // Deeper: each layer's backward is long enough to hide a bucket's all_reduce behind.
      training_step_table(rounds, Device(device), dist::default_bucket_bytes, 1024, 6);
      training_step_table(rounds, Device(device), std::size_t{4} << 20, 1024, 6);
    }
    dist::destroy_process_group();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_distributed: %s\n", e.what());
    return 1;
  }
}
