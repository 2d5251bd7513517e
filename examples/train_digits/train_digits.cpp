// SPDX-License-Identifier: Apache-2.0
// Trains an MLP on the UCI handwritten digits on try_gpu(), as the chapter advises:
// data and parameters on one device, the loss of every step accumulated on that device
// and read once per epoch (the host-sync count is printed), then saves the parameters,
// reloads them into a fresh model on another device (cpu:1 with HETERO_CPU_DEVICES=2)
// and checks that it scores the same test accuracy.
//
//   train_digits [--epochs 30] [--batch-size 32] [--lr 0.05] [--momentum 0.9]
//                [--data examples/data/digits.csv.gz] [--params digits_mlp.safetensors]
//                [--reload-device cpu:1] [--min-accuracy 0.95] [--item-per-step]
// Exit status 1 when the test accuracy is below --min-accuracy or the reloaded model
// disagrees; 2 for bad arguments or data.
#include <CLI/CLI.hpp>

#include "../cli_checks.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <hetero/hetero.hpp>

#include "digits_dataset.hpp"
#include "digits_mlp.hpp"

using namespace hetero;

namespace {

struct DeviceData {
  Tensor images;  // [n, 8, 8] float32
  Tensor labels;  // [n] int64
};

DeviceData upload(const digits::Split& s, const Device& d) {
  return {from_vector(s.images, {s.size(), 8, 8}, d), from_vector(s.labels, {s.size()}, d)};
}

// Number of correct predictions, computed on the device and read once.
std::int64_t correct(nn::Module& net, const DeviceData& data) {
  NoGradGuard no_grad;
  const Tensor pred = argmax(net(data.images), 1);
  // pred == label as a 0/1 tensor: 1 - |pred - label| is 1 on a match and <= 0 otherwise.
  const Tensor hits = relu(1.0 - abs(pred.to(DType::float32) - data.labels.to(DType::float32)));
  return static_cast<std::int64_t>(hits.sum().item<double>() + 0.5);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train an MLP on the UCI handwritten digits on try_gpu(), save, reload elsewhere"};
  app.set_version_flag("--version",
                       "train_digits (hetero " + std::string(hetero::version().string) + ")");
  int epochs = 30;
  std::int64_t batch = 32;
  double lr = 0.05, momentum = 0.9, min_accuracy = 0.95;
  std::string data_path = HETERO_DIGITS_CSV;
  std::string params = (std::filesystem::temp_directory_path() / "digits_mlp.safetensors").string();
  std::string reload_name;
  bool item_per_step = false;
  app.add_option("--epochs", epochs, "passes over the training split")
      ->check(hetero::examples::positive());
  app.add_option("--batch-size", batch, "minibatch size")->check(hetero::examples::positive());
  app.add_option("--lr", lr, "SGD learning rate")->check(hetero::examples::positive());
  app.add_option("--momentum", momentum, "SGD momentum")->check(hetero::examples::non_negative());
  app.add_option("--data", data_path, "digits.csv.gz");
  app.add_option("--params", params, "where to save the parameters (safetensors)");
  app.add_option("--reload-device", reload_name,
                 "device of the reloaded model (default: cpu:1 if present, else cpu)");
  app.add_option("--min-accuracy", min_accuracy, "exit 1 below this test accuracy");
  app.add_flag("--item-per-step", item_per_step,
               "read every step's loss on the host with item() instead (one host sync per step: "
               "the slow way)");
  CLI11_PARSE(app, argc, argv);

  try {
    const Device dev = try_gpu();
    const Device reload_dev = !reload_name.empty()      ? Device(reload_name)
                              : device_count("cpu") > 1 ? Device("cpu:1")
                                                        : Device::cpu();
    const digits::Dataset ds = digits::load(data_path);
    std::cout << "digits: " << ds.train.size() << " train / " << ds.test.size()
              << " test samples, training on " << dev << "\n";

    manual_seed(0);
    nn::Sequential net = digits::make_mlp();
    net.to(dev);
    const DeviceData train = upload(ds.train, dev), test = upload(ds.test, dev);
    // The labels were checked to be 0..9 when read, so the loss skips its per-step target
    // check (a host wait): an out-of-range label would make the loss NaN.
    nn::CrossEntropyLoss criterion(Tensor(), /*check_targets=*/false);
    optim::SGD sgd(net.parameters(), {.lr = lr, .momentum = momentum});

    reset_transfer_stats();
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t n = ds.train.size();
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      const auto syncs_before = transfer_stats(dev).host_syncs;
      Tensor loss_sum = zeros({}, dev);  // accumulated on the device
      for (std::int64_t first = 0; first < n; first += batch) {
        const std::int64_t len = std::min(batch, n - first);
        const Tensor loss =
            criterion(net(train.images.narrow(0, first, len)), train.labels.narrow(0, first, len));
        sgd.zero_grad();
        loss.backward();
        sgd.step();
        if (item_per_step)
          loss_sum = loss_sum + loss.item<double>() * static_cast<double>(len);
        else
          loss_sum = loss_sum + loss.detach() * static_cast<double>(len);
      }
      const double mean_loss =
          loss_sum.item<double>() / static_cast<double>(n);  // the epoch's one host read
      const auto syncs = transfer_stats(dev).host_syncs - syncs_before;
      if (epoch == 1 || epoch % 5 == 0 || epoch == epochs)
        std::printf("epoch %3d  loss %.4f  steps %lld  host syncs %llu\n", epoch, mean_loss,
                    static_cast<long long>((n + batch - 1) / batch),
                    static_cast<unsigned long long>(syncs));
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto total_syncs = transfer_stats(dev).host_syncs;
    net.eval();
    const std::int64_t hits = correct(net, test);
    const double accuracy = static_cast<double>(hits) / static_cast<double>(ds.test.size());
    std::printf("trained %d epochs in %.2f s on %s: %llu host syncs in all (%s)\n", epochs, seconds,
                dev.str().c_str(), static_cast<unsigned long long>(total_syncs),
                item_per_step ? "loss.item() every step" : "one loss read per epoch");
    std::printf("test accuracy on %s: %.2f%% (%lld / %lld)\n", dev.str().c_str(), 100 * accuracy,
                static_cast<long long>(hits), static_cast<long long>(ds.test.size()));

    // Exercise 2: save the parameters, load them into a fresh model on another device.
    save(net, params, {{"model", "Sequential{Flatten, Linear(64,128), ReLU, Linear(128,10)}"}});
    nn::Sequential reloaded = digits::make_mlp();
    load(reloaded, params, reload_dev);
    reloaded.eval();
    const std::int64_t hits2 = correct(reloaded, upload(ds.test, reload_dev));
    std::printf("saved %s (%llu bytes); reloaded on %s: test accuracy %.2f%% (%lld / %lld) — %s\n",
                params.c_str(), static_cast<unsigned long long>(std::filesystem::file_size(params)),
                reload_dev.str().c_str(),
                100.0 * static_cast<double>(hits2) / static_cast<double>(ds.test.size()),
                static_cast<long long>(hits2), static_cast<long long>(ds.test.size()),
                hits2 == hits ? "same" : "DIFFERENT");
    if (hits2 != hits || accuracy < min_accuracy) return 1;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "train_digits: " << e.what() << "\n";
    return 2;
  }
}
