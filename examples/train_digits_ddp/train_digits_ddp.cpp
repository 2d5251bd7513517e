// SPDX-License-Identifier: Apache-2.0
// Trains the digits MLP of train_digits data-parallel over the processes of `mpirun -np N`,
// as PyTorch's DistributedDataParallel: every rank builds the model, takes rank 0's
// parameters, trains on its shard of every global batch (DistributedSampler) on its own
// device (try_gpu(local_rank)), and averages the gradients while backward runs
// (DistributedDataParallel: bucket all-reduces launched from gradient hooks), waiting for
// them before each SGD step. At the
// end it checks that the parameters are bit-identical on every rank and prints the test
// accuracy, which matches the single-process run within noise.
//
//   mpirun -np 2 train_digits_ddp [--epochs 30] [--batch-size 32] [--lr 0.05]
//                                 [--momentum 0.9] [--data digits.csv.gz] [--min-accuracy 0.95]
// --batch-size is the global batch (split over the ranks), so the same flags train the
// same model as train_digits. Exit status 1 when the replicas differ or the accuracy is
// below --min-accuracy; 2 for bad arguments, data or a failed process group.
#include <CLI/CLI.hpp>

#include "../cli_checks.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <hetero/distributed.hpp>
#include <hetero/hetero.hpp>

#include "../train_digits/digits_dataset.hpp"
#include "../train_digits/digits_mlp.hpp"

using namespace hetero;
namespace dist = hetero::distributed;

namespace {

// The samples `indices` of `split` as a batch on `d` (images [n, 8, 8], labels [n]), as a
// DataLoader with a sampler collates them.
std::pair<Tensor, Tensor> collate(const digits::Split& split, const std::int64_t* indices,
                                  std::int64_t n, const Device& d) {
  std::vector<float> images(static_cast<std::size_t>(n) * 64);
  std::vector<std::int64_t> labels(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    const auto i = static_cast<std::size_t>(indices[k]);
    std::memcpy(&images[static_cast<std::size_t>(k) * 64], &split.images[i * 64],
                64 * sizeof(float));
    labels[static_cast<std::size_t>(k)] = split.labels[i];
  }
  return {from_vector(images, {n, 8, 8}, d), from_vector(labels, {n}, d)};
}

// Test accuracy of `net` on the whole test split (every rank evaluates it all).
double accuracy(nn::Module& net, const digits::Split& test, const Device& d) {
  NoGradGuard no_grad;
  const Tensor pred = argmax(net(from_vector(test.images, {test.size(), 8, 8}, d)), 1).cpu();
  const auto p = pred.to_vector<std::int64_t>();
  std::int64_t hits = 0;
  for (std::size_t i = 0; i < p.size(); ++i) hits += p[i] == test.labels[i];
  return static_cast<double>(hits) / static_cast<double>(test.size());
}

// True when every rank's parameters equal rank 0's bit for bit.
bool replicas_identical(nn::Module& net) {
  bool same = true;
  for (const auto& [name, p] : net.named_parameters()) {
    Tensor mine = p.detach().cpu().contiguous();
    Tensor root = mine.clone();
    dist::broadcast(root, 0);
    Tensor differs = full(
        {}, std::memcmp(mine.host_data_ptr(), root.host_data_ptr(),
                        static_cast<std::size_t>(mine.numel()) * element_size(mine.dtype())) != 0
                ? 1.0
                : 0.0);
    dist::all_reduce(differs, dist::ReduceOp::max);
    if (differs.item<double>() != 0) {
      if (dist::rank() == 0) std::printf("parameter %s differs between ranks\n", name.c_str());
      same = false;
    }
  }
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train the digits MLP data-parallel over the processes of mpirun"};
  app.set_version_flag("--version",
                       "train_digits_ddp (hetero " + std::string(hetero::version().string) + ")");
  int epochs = 30;
  std::int64_t batch = 32;
  double lr = 0.05, momentum = 0.9, min_accuracy = 0.95;
  std::string data_path = HETERO_DIGITS_CSV;
  app.add_option("--epochs", epochs, "passes over the training split")
      ->check(hetero::examples::positive());
  app.add_option("--batch-size", batch, "global minibatch size, split over the ranks")
      ->check(hetero::examples::positive());
  app.add_option("--lr", lr, "SGD learning rate")->check(hetero::examples::positive());
  app.add_option("--momentum", momentum, "SGD momentum")->check(hetero::examples::non_negative());
  app.add_option("--data", data_path, "digits.csv.gz");
  app.add_option("--min-accuracy", min_accuracy, "exit 1 below this test accuracy");
  CLI11_PARSE(app, argc, argv);

  try {
    dist::init_process_group();
    const int me = dist::rank(), world = dist::world_size();
    const Device dev = try_gpu(dist::local_rank() % std::max(1, num_gpus()));
    const digits::Dataset ds = digits::load(data_path);
    const std::int64_t per_rank_batch = std::max<std::int64_t>(1, batch / world);
    std::printf("rank %d of %d: %lld train samples, shard of %lld, batch %lld of %lld, on %s\n", me,
                world, static_cast<long long>(ds.train.size()),
                static_cast<long long>((ds.train.size() + world - 1) / world),
                static_cast<long long>(per_rank_batch),
                static_cast<long long>(per_rank_batch * world), dev.str().c_str());

    manual_seed(static_cast<std::uint64_t>(
        me));  // different on purpose: DistributedDataParallel broadcasts rank 0's
    nn::Sequential net = digits::make_mlp();
    net.to(dev);
    // Broadcasts rank 0's parameters; its hooks reduce gradients while backward runs.
    dist::DistributedDataParallel ddp(net);
    nn::CrossEntropyLoss criterion;
    optim::SGD sgd(net.parameters(), {.lr = lr, .momentum = momentum});
    auto sampler =
        dist::DistributedSampler::for_group(ds.train.size(), /*shuffle=*/true, /*seed=*/0);

    const auto start = std::chrono::steady_clock::now();
    std::int64_t steps = 0;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      sampler.set_epoch(epoch);
      const auto shard = sampler.indices();
      const auto n = static_cast<std::int64_t>(shard.size());
      Tensor loss_sum = zeros({}, dev);
      for (std::int64_t first = 0; first < n; first += per_rank_batch, ++steps) {
        const std::int64_t len = std::min(per_rank_batch, n - first);
        const auto [x, y] = collate(ds.train, shard.data() + first, len, dev);
        const Tensor loss = criterion(net(x), y);
        sgd.zero_grad();
        loss.backward();
        ddp.wait();  // every gradient is the mean over the ranks now
        sgd.step();
        loss_sum = loss_sum + loss.detach() * static_cast<double>(len);
      }
      dist::all_reduce(loss_sum);  // the epoch's mean loss over every rank's samples
      if (me == 0 && (epoch == 1 || epoch % 5 == 0 || epoch == epochs))
        std::printf("epoch %3d  loss %.4f\n", epoch,
                    loss_sum.item<double>() / static_cast<double>(n * world));
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool same = replicas_identical(net);
    net.eval();
    const double acc = accuracy(net, ds.test, dev);
    if (me == 0) {
      std::printf("trained %d epochs on %d processes in %.2f s (%lld steps, %.3f ms/step)\n",
                  epochs, world, seconds, static_cast<long long>(steps),
                  1e3 * seconds / static_cast<double>(steps));
      std::printf("parameters on every rank: %s\n", same ? "bit-identical" : "DIFFERENT");
      std::printf("test accuracy: %.2f%%\n", 100 * acc);
    }
    dist::destroy_process_group();
    return same && acc >= min_accuracy ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "train_digits_ddp: " << e.what() << "\n";
    return 2;
  }
}
