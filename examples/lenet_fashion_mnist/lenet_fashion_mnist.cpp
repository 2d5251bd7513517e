// SPDX-License-Identifier: Apache-2.0
// D2L's LeNet on Fashion-MNIST on try_gpu() (chapter "Convolutional Neural Networks"): SGD
// at the book's hyperparameters (lr 0.9, batch 256, 10 epochs, cross entropy), or Adam
// (--optimizer adam, lr 1e-3 unless --lr), a progress bar and per-epoch loss, training and
// test accuracy, a checkpoint after every epoch (FILE: the parameters and the epoch;
// FILE.optimizer: the optimiser's state_dict and the epoch, written first; safetensors) and
// --resume from it. The training order of
// epoch e is a permutation drawn from mt19937_64(seed + e), so a resumed run replays the
// same minibatches and ends with the same parameters as an uninterrupted one.
//
//   lenet_fashion_mnist [--epochs 10] [--batch-size 256] [--lr 0.9] [--data DIR]
//                       [--optimizer sgd|adam] [--limit N] [--test-limit N]
//                       [--checkpoint FILE] [--resume]
//                       [--min-accuracy A] [--device cuda:0] [--quiet] [--expect-loss-drop]
// Exit status 1 when the test accuracy is below --min-accuracy, or with --expect-loss-drop
// when an epoch's last tenth of steps did not have a lower mean loss than its first; 2 for bad
// arguments, a missing data set (the message names its Debian package) or a bad checkpoint.
#include <CLI/CLI.hpp>

#include "../cli_checks.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <numeric>
#include <random>

#include <hetero/hetero.hpp>

#include "fashion_mnist.hpp"
#include "lenet.hpp"

using namespace hetero;

namespace {

// Samples `order[first, first + len)` of `s` as a [len, 1, 28, 28] batch and its labels on `d`.
std::pair<Tensor, Tensor> batch(const fashion_mnist::Split& s,
                                const std::vector<std::int64_t>& order, std::int64_t first,
                                std::int64_t len, const Device& d) {
  std::vector<float> images(static_cast<std::size_t>(len) * 784);
  std::vector<std::int64_t> labels(static_cast<std::size_t>(len));
  for (std::int64_t i = 0; i < len; ++i) {
    const auto k = static_cast<std::size_t>(order[static_cast<std::size_t>(first + i)]);
    std::copy_n(s.images.begin() + static_cast<std::ptrdiff_t>(k * 784), 784,
                images.begin() + i * 784);
    labels[static_cast<std::size_t>(i)] = s.labels[k];
  }
  return {from_vector(images, {len, 1, 28, 28}, d), from_vector(labels, {len}, d)};
}

// Correct predictions over `s`, counted on the device and read once.
std::int64_t correct(nn::Module& net, const fashion_mnist::Split& s, const Device& d) {
  NoGradGuard no_grad;
  std::vector<std::int64_t> order(static_cast<std::size_t>(s.size()));
  std::iota(order.begin(), order.end(), 0);
  Tensor hits = zeros({}, TensorOptions(d).dtype(DType::int64));
  for (std::int64_t first = 0; first < s.size(); first += 1000) {
    const auto [x, y] = batch(s, order, first, std::min<std::int64_t>(1000, s.size() - first), d);
    hits = hits + eq(argmax(net(x), 1), y).sum();
  }
  return hits.item<std::int64_t>();
}

void progress(int epoch, std::int64_t done, std::int64_t total) {
  const int width = 30, filled = static_cast<int>(width * done / total);
  std::fprintf(stderr, "\repoch %2d [%s%s] %lld/%lld", epoch, std::string(filled, '=').c_str(),
               std::string(width - filled, ' ').c_str(), static_cast<long long>(done),
               static_cast<long long>(total));
  if (done == total) std::fprintf(stderr, "\r%*s\r", width + 40, "");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train D2L's LeNet on Fashion-MNIST on try_gpu()"};
  app.set_version_flag(
      "--version", "lenet_fashion_mnist (hetero " + std::string(hetero::version().string) + ")");
  int epochs = 10;
  std::int64_t batch_size = 256;
  double lr = 0;
  std::string optimizer = "sgd";
  hetero::examples::ImageTrainingOptions o;
  o.data = fashion_mnist::kDebianDir;
  auto& [data, checkpoint, device_name, limit, test_limit, min_accuracy, seed, resume, quiet,
         expect_drop] = o;
  app.add_option("--epochs", epochs, "passes over the training set")
      ->check(hetero::examples::positive());
  app.add_option("--batch-size", batch_size, "minibatch size")->check(hetero::examples::positive());
  app.add_option("--lr", lr, "learning rate (default: 0.9 for sgd, 1e-3 for adam)")
      ->check(hetero::examples::positive());
  app.add_option("--optimizer", optimizer, "sgd (D2L's) or adam")
      ->check(CLI::IsMember({"sgd", "adam"}));
  hetero::examples::add_image_training_options(
      app, o, "save the parameters and epoch here after every epoch",
      "initialisation and shuffling seed");
  CLI11_PARSE(app, argc, argv);
  if (resume && checkpoint.empty()) {
    std::cerr << "lenet_fashion_mnist: --resume needs --checkpoint FILE\n";
    return 2;
  }

  try {
    const Device dev = device_name.empty() ? try_gpu() : Device(device_name);
    const auto train = fashion_mnist::load(data, "train", limit);
    const auto test = fashion_mnist::load(data, "t10k", test_limit);
    std::printf("fashion-mnist: %lld train / %lld test images from %s, training on %s\n",
                static_cast<long long>(train.size()), static_cast<long long>(test.size()),
                data.c_str(), dev.str().c_str());

    manual_seed(seed);
    nn::Sequential net = lenet::make();
    net.to(dev);
    std::unique_ptr<optim::Optimizer> opt;
    if (optimizer == "adam")
      opt = std::make_unique<optim::Adam>(net.parameters(),
                                          optim::AdamOptions{.lr = lr > 0 ? lr : 1e-3});
    else
      opt = std::make_unique<optim::SGD>(net.parameters(),
                                         optim::SGDOptions{.lr = lr > 0 ? lr : 0.9});
    const std::string optimizer_file = checkpoint + ".optimizer";
    int first_epoch = 1;
    if (resume) {
      const std::string epoch = load_metadata(checkpoint).at("epoch");
      const Metadata om = load_metadata(optimizer_file);
      if (om.count("epoch") == 0 || om.at("epoch") != epoch || om.count("optimizer") == 0 ||
          om.at("optimizer") != optimizer)
        throw std::runtime_error(optimizer_file + " does not hold the " + optimizer +
                                 " state of epoch " + epoch + " of " + checkpoint);
      load(net, checkpoint, dev);
      opt->load_state_dict(load_file(optimizer_file, dev));
      first_epoch = std::stoi(epoch) + 1;
      std::printf("resumed from %s after epoch %d\n", checkpoint.c_str(), first_epoch - 1);
    }
    nn::CrossEntropyLoss criterion(Tensor(), /*check_targets=*/false);  // labels checked on reading
    const bool bar = !quiet && isatty(STDERR_FILENO);
    const std::int64_t n = train.size(), steps = (n + batch_size - 1) / batch_size;
    double accuracy = 0;
    bool dropped = true;
    const std::int64_t tenth = std::max<std::int64_t>(1, steps / 10);
    for (int epoch = first_epoch; epoch <= epochs; ++epoch) {
      std::vector<std::int64_t> order(static_cast<std::size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      std::mt19937_64 rng(seed + static_cast<std::uint64_t>(epoch));
      for (std::int64_t i = n - 1; i > 0; --i)  // Fisher-Yates: the same order everywhere
        std::swap(order[static_cast<std::size_t>(i)],
                  order[static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(i + 1))]);
      net.train();
      const auto start = std::chrono::steady_clock::now();
      Tensor loss_sum = zeros({}, dev), hits = zeros({}, TensorOptions(dev).dtype(DType::int64));
      Tensor head = zeros({}, dev),
             tail = zeros({}, dev);  // summed step losses, first and last tenth
      for (std::int64_t step = 0; step < steps; ++step) {
        const std::int64_t first = step * batch_size, len = std::min(batch_size, n - first);
        const auto [x, y] = batch(train, order, first, len, dev);
        const Tensor logits = net(x);
        const Tensor loss = criterion(logits, y);
        opt->zero_grad();
        loss.backward();
        opt->step();
        loss_sum = loss_sum + loss.detach() * static_cast<double>(len);
        if (step < tenth) head = head + loss.detach();
        if (step >= steps - tenth) tail = tail + loss.detach();
        hits = hits + eq(argmax(logits.detach(), 1), y).sum();
        if (bar && (step % 10 == 9 || step + 1 == steps)) progress(epoch, step + 1, steps);
      }
      const double loss = loss_sum.item<double>() / static_cast<double>(n);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      net.eval();
      accuracy = static_cast<double>(correct(net, test, dev)) / static_cast<double>(test.size());
      std::printf("epoch %2d  loss %.4f  train acc %.3f  test acc %.3f  %.1f s (%.0f images/s)\n",
                  epoch, loss,
                  static_cast<double>(hits.item<std::int64_t>()) / static_cast<double>(n), accuracy,
                  seconds, static_cast<double>(n) / seconds);
      const double first = head.item<double>() / static_cast<double>(tenth),
                   last = tail.item<double>() / static_cast<double>(tenth);
      std::printf("          mean loss of the first tenth of steps %.4f, of the last %.4f\n", first,
                  last);
      dropped = dropped && last < first;
      std::fflush(stdout);
      if (!checkpoint.empty()) {
        // The optimiser's state first: a checkpoint names an epoch only once both are written.
        save(opt->state_dict(), optimizer_file,
             {{"epoch", std::to_string(epoch)}, {"optimizer", optimizer}});
        save(net, checkpoint, {{"epoch", std::to_string(epoch)}, {"model", "d2l-lenet"}});
      }
    }
    if (first_epoch > epochs) {
      net.eval();
      accuracy = static_cast<double>(correct(net, test, dev)) / static_cast<double>(test.size());
    }
    std::printf("test accuracy %.4f on %s\n", accuracy, dev.str().c_str());
    if (expect_drop && !dropped) {
      std::printf("the loss did not fall within every epoch (--expect-loss-drop)\n");
      return 1;
    }
    return accuracy < min_accuracy ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "lenet_fashion_mnist: " << e.what() << "\n";
    return 2;
  }
}
