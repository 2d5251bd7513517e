// SPDX-License-Identifier: Apache-2.0
// The libtorch twin of examples/resnet18_fashion_mnist (issue #46 item 5): the same D2L
// ResNet-18, torch's default initialisation (which hetero's layers reproduce in
// distribution), the same normalisation, batch size, SGD with momentum 0.9 and weight decay
// (or Adam), and the same one-cycle or cosine schedule per minibatch (written out here from
// torch.optim.lr_scheduler's formulas: libtorch 1.13's C++ API has neither), run in its own
// process. The shuffle is torch::randperm from a generator seeded with seed + epoch: the
// same procedure as hetero's DataLoader, not the same permutation (the two frameworks'
// generators differ), and so are the initial weights. With --twin-files DIR (written by
// `resnet18_fashion_mnist --twin-files DIR` with the same --epochs, --limit and --seed) it
// starts from hetero's initial weights and buffers and takes each epoch's order from hetero,
// so that the two runs differ only by rounding. It prints the example's lines, so the two
// transcripts compare row by row.
//
//   resnet18_libtorch [--epochs 4] [--batch-size 128] [--optimizer sgd|adam]
//                     [--schedule onecycle|cosine|none] [--lr MAX] [--limit N] [--test-limit N]
//                     [--threads 2] [--data DIR] [--twin-files DIR]
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numbers>

#include "idx_reader.hpp"
#include "twin_files.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kMean = 0.2860, kStd = 0.3530;

struct ResidualImpl : torch::nn::Module {
  ResidualImpl(std::int64_t in, std::int64_t out, bool use_1x1conv, std::int64_t stride)
      : conv1(register_module(
            "conv1",
            torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1)))),
        conv2(register_module("conv2",
                              torch::nn::Conv2d(torch::nn::Conv2dOptions(out, out, 3).padding(1)))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(out))),
        bn2(register_module("bn2", torch::nn::BatchNorm2d(out))) {
    if (use_1x1conv)
      conv3 = register_module(
          "conv3", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).stride(stride)));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = torch::relu(bn1(conv1(x)));
    y = bn2(conv2(y));
    return torch::relu(y + (conv3 ? conv3(x) : x));
  }
  torch::nn::Conv2d conv1, conv2, conv3{nullptr};
  torch::nn::BatchNorm2d bn1, bn2;
};
TORCH_MODULE(Residual);

// D2L's net as one Sequential (libtorch's Sequential cannot hold a Sequential): b1, then the
// four stages' Residuals (each stage after the first opens with a strided 1x1 shortcut).
torch::nn::Sequential resnet18() {
  using namespace torch::nn;
  Sequential net(Conv2d(Conv2dOptions(1, 64, 7).stride(2).padding(3)), BatchNorm2d(64), ReLU(),
                 MaxPool2d(MaxPool2dOptions(3).stride(2).padding(1)));
  const std::int64_t widths[] = {64, 64, 128, 256, 512};
  for (int s = 1; s <= 4; ++s)
    for (int i = 0; i < 2; ++i)
      net->push_back(i == 0 && s > 1 ? Residual(widths[s - 1], widths[s], true, 2)
                                     : Residual(widths[s], widths[s], false, 1));
  net->push_back(AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({1, 1})));
  net->push_back(Flatten());
  net->push_back(Linear(512, 10));
  return net;
}

// The hetero example's state_dict name of this network's tensor `name`: b1's four layers are
// hetero's "0.<k>", the Residuals 4..11 are hetero's stages "<1 + (k - 4) / 2>.<(k - 4) % 2>",
// and the Linear (14) is hetero's "7".
std::string hetero_name(const std::string& name) {
  const std::size_t dot = name.find('.');
  const int k = std::stoi(name.substr(0, dot));
  const std::string rest = name.substr(dot);
  if (k < 4) return "0." + std::to_string(k) + rest;
  if (k < 12) return std::to_string(1 + (k - 4) / 2) + "." + std::to_string((k - 4) % 2) + rest;
  if (k == 14) return "7" + rest;
  throw std::runtime_error("resnet18_libtorch: no hetero name for " + name);
}

// Images [n, 1, 28, 28] normalised, and labels [n].
std::pair<torch::Tensor, torch::Tensor> load(const std::string& dir, const std::string& prefix,
                                             std::int64_t limit) {
  std::int64_t n = 0, m = 0;
  auto images = twins::read_idx_bytes(dir, prefix + "-images-idx3-ubyte", limit, n);
  auto labels = twins::read_idx_bytes(dir, prefix + "-labels-idx1-ubyte", limit, m);
  torch::Tensor x = torch::from_blob(images.data(), {n, 1, 28, 28}, torch::kUInt8)
                        .to(torch::kFloat32)
                        .div(255)
                        .sub(kMean)
                        .div(kStd);
  torch::Tensor y = torch::from_blob(labels.data(), {m}, torch::kUInt8).to(torch::kInt64);
  return {x, y};
}

// torch.optim.lr_scheduler.OneCycleLR's lr and momentum (anneal_strategy "cos", two phases,
// pct_start 0.3, div_factor 25, final_div_factor 1e4, momentum 0.85..0.95) at step s.
std::pair<double, double> one_cycle(double max_lr, std::int64_t total, std::int64_t s) {
  const double initial = max_lr / 25, min_lr = initial / 1e4;
  const double end1 = 0.3 * static_cast<double>(total) - 1, end2 = static_cast<double>(total) - 1;
  const auto anneal = [](double a, double b, double pct) {
    return b + (a - b) / 2 * (std::cos(std::numbers::pi * pct) + 1);
  };
  const double t = static_cast<double>(s);
  if (t <= end1) return {anneal(initial, max_lr, t / end1), anneal(0.95, 0.85, t / end1)};
  const double pct = (t - end1) / (end2 - end1);
  return {anneal(max_lr, min_lr, pct), anneal(0.85, 0.95, pct)};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"libtorch twin of examples/resnet18_fashion_mnist"};
  int epochs = 4, threads = 2;
  std::int64_t batch_size = 128, limit = 0, test_limit = 0;
  double lr = 0, weight_decay = 5e-4;
  std::uint64_t seed = 0;
  std::string data = "/usr/share/datasets/fashion-mnist", optimizer = "sgd", schedule = "onecycle";
  app.add_option("--epochs", epochs);
  app.add_option("--batch-size", batch_size);
  app.add_option("--optimizer", optimizer)->check(CLI::IsMember({"sgd", "adam"}));
  app.add_option("--schedule", schedule)->check(CLI::IsMember({"onecycle", "cosine", "none"}));
  app.add_option("--lr", lr);
  app.add_option("--weight-decay", weight_decay);
  app.add_option("--limit", limit);
  app.add_option("--test-limit", test_limit);
  app.add_option("--threads", threads, "intra-op threads");
  app.add_option("--seed", seed);
  app.add_option("--data", data);
  std::string twin_files;
  app.add_option("--twin-files", twin_files,
                 "start from the hetero example's weights and data order in DIR");
  CLI11_PARSE(app, argc, argv);
  try {
    torch::set_num_threads(threads);
    const auto [train_x, train_y] = load(data, "train", limit);
    const auto [test_x, test_y] = load(data, "t10k", test_limit);
    const std::int64_t n = train_x.size(0), steps = (n + batch_size - 1) / batch_size,
                       total = steps * epochs;
    std::printf("libtorch %s: %lld train / %lld test images, %d threads\n", TORCH_VERSION,
                static_cast<long long>(n), static_cast<long long>(test_x.size(0)), threads);
    torch::manual_seed(seed);
    torch::nn::Sequential net = resnet18();
    std::map<std::string, torch::Tensor> orders;
    if (!twin_files.empty()) {
      twins::load_state(*net, twins::read_safetensors(twin_files + "/init.safetensors"),
                        hetero_name);
      orders = twins::read_safetensors(twin_files + "/order.safetensors");
    }
    const bool adam = optimizer == "adam";
    const double peak = lr > 0 ? lr : adam ? 2e-3 : 0.1;
    std::unique_ptr<torch::optim::Optimizer> opt;
    if (adam)
      opt =
          std::make_unique<torch::optim::Adam>(net->parameters(), torch::optim::AdamOptions(peak));
    else
      opt = std::make_unique<torch::optim::SGD>(
          net->parameters(),
          torch::optim::SGDOptions(peak).momentum(0.9).weight_decay(weight_decay));
    const auto set_schedule = [&](std::int64_t s) {
      double rate = peak, momentum = -1;
      if (schedule == "onecycle") std::tie(rate, momentum) = one_cycle(peak, total, s);
      if (schedule == "cosine")
        rate =
            peak / 2 *
            (1 + std::cos(std::numbers::pi * static_cast<double>(s) / static_cast<double>(total)));
      for (auto& g : opt->param_groups()) {
        if (adam) {
          auto& o = static_cast<torch::optim::AdamOptions&>(g.options());
          o.lr(rate);
          if (momentum >= 0) o.betas({momentum, std::get<1>(o.betas())});
        } else {
          auto& o = static_cast<torch::optim::SGDOptions&>(g.options());
          o.lr(rate);
          if (momentum >= 0) o.momentum(momentum);
        }
      }
      return rate;
    };
    torch::Generator shuffle = at::detail::createCPUGenerator();
    std::int64_t step_index = 0;
    double rate = 0;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      shuffle.set_current_seed(seed + static_cast<std::uint64_t>(epoch));
      const auto from_hetero = orders.find("epoch" + std::to_string(epoch));
      if (!twin_files.empty() && (from_hetero == orders.end() || from_hetero->second.numel() != n))
        throw std::runtime_error(twin_files + "/order.safetensors has no order of " +
                                 std::to_string(n) + " samples for epoch " + std::to_string(epoch));
      const torch::Tensor order =
          twin_files.empty() ? torch::randperm(n, shuffle) : from_hetero->second;
      net->train();
      const auto start = Clock::now();
      double data_seconds = 0;
      torch::Tensor loss_sum = torch::zeros({}), hits = torch::zeros({}, torch::kInt64);
      // Step losses of the first and the last tenth of the epoch, as the example prints them.
      const std::int64_t tenth = std::max<std::int64_t>(1, steps / 10);
      torch::Tensor head = torch::zeros({}), tail = torch::zeros({});
      for (std::int64_t step = 0; step < steps; ++step) {
        const auto fetch = Clock::now();
        const std::int64_t first = step * batch_size, len = std::min(batch_size, n - first);
        const torch::Tensor idx = order.narrow(0, first, len);
        const torch::Tensor x = train_x.index_select(0, idx), y = train_y.index_select(0, idx);
        data_seconds += std::chrono::duration<double>(Clock::now() - fetch).count();
        rate = set_schedule(step_index++);
        const torch::Tensor logits = net->forward(x);
        const torch::Tensor loss = torch::nn::functional::cross_entropy(logits, y);
        opt->zero_grad();
        loss.backward();
        opt->step();
        loss_sum += loss.detach() * static_cast<double>(len);
        if (step < tenth) head += loss.detach();
        if (step >= steps - tenth) tail += loss.detach();
        hits += logits.detach().argmax(1).eq(y).sum();
      }
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      net->eval();
      torch::NoGradGuard no_grad;
      std::int64_t correct = 0;
      for (std::int64_t first = 0; first < test_x.size(0); first += 1000) {
        const std::int64_t len = std::min<std::int64_t>(1000, test_x.size(0) - first);
        correct += net->forward(test_x.narrow(0, first, len))
                       .argmax(1)
                       .eq(test_y.narrow(0, first, len))
                       .sum()
                       .item<std::int64_t>();
      }
      std::printf(
          "epoch %2d  loss %.4f  train acc %.3f  test acc %.4f  %.1f s (%.0f images/s, "
          "waiting for data %.1f%%)  lr %.2e\n",
          epoch, loss_sum.item<double>() / static_cast<double>(n),
          static_cast<double>(hits.item<std::int64_t>()) / static_cast<double>(n),
          static_cast<double>(correct) / static_cast<double>(test_x.size(0)), seconds,
          static_cast<double>(n) / seconds, 100 * data_seconds / seconds, rate);
      std::printf("          mean loss of the first tenth of steps %.4f, of the last %.4f\n",
                  head.item<double>() / static_cast<double>(tenth),
                  tail.item<double>() / static_cast<double>(tenth));
      std::fflush(stdout);
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "resnet18_libtorch: " << e.what() << "\n";
    return 2;
  }
}
