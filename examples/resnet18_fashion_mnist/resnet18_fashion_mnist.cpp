// SPDX-License-Identifier: Apache-2.0
// D2L's ResNet-18 on 28 x 28 Fashion-MNIST (issue #46 item 5): the data through
// hetero::data (fashion_mnist(), normalised by the training set's mean and standard
// deviation; with --augment a random crop with 2 pixels of padding and a horizontal flip per
// sample), a DataLoader with worker threads, pinned memory and a non-blocking copy to the
// device; SGD with momentum and weight decay or Adam, a one-cycle or cosine schedule stepped
// per minibatch; a progress bar; per-epoch loss, accuracies, images/s and the share of the
// step time spent waiting for data; a checkpoint after every epoch (FILE: the parameters,
// BatchNorm's running statistics and the epoch; FILE.optimizer and FILE.schedule, written
// first) and --resume. The shuffle of epoch e comes from a Generator seeded with seed + e and
// the augmentation from (seed, e, sample), so a resumed run ends bit-identical to an
// uninterrupted one. --twin-files DIR writes what the libtorch twin (bench/twins) needs to
// train the same network from the same start on the same batches: DIR/init.safetensors (the
// initial parameters and buffers) and DIR/order.safetensors (each epoch's shuffle, int64
// [n] named "epoch1", "epoch2", ...).
//
//   resnet18_fashion_mnist [--epochs 4] [--batch-size 128] [--optimizer sgd|adam]
//                          [--schedule onecycle|cosine|none] [--lr MAX] [--augment]
//                          [--workers 2] [--limit N] [--test-limit N] [--data DIR]
//                          [--checkpoint FILE] [--resume] [--stop-after EPOCHS]
//                          [--min-accuracy A] [--expect-loss-drop] [--device cuda:0]
//                          [--twin-files DIR]
// Exit status 1 when the test accuracy is below --min-accuracy, or with --expect-loss-drop
// when an epoch's last tenth of steps did not have a lower mean loss than its first; 2 for bad
// arguments, a missing data set (the message names its Debian package) or a bad checkpoint.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <hetero/hetero.hpp>

#include "../cli_checks.hpp"
#include "resnet.hpp"

using namespace hetero;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Fashion-MNIST's training-set statistics of the [0, 1] pixels.
constexpr double kMean = 0.2860, kStd = 0.3530;

// Correct predictions over `loader`'s batches (the model in eval mode), read once.
std::int64_t correct(nn::Module& net, data::DataLoader& loader, const Device& d) {
  NoGradGuard no_grad;
  Tensor hits = zeros({}, TensorOptions(d).dtype(DType::int64));
  for (const data::Batch& b : loader) hits = hits + eq(argmax(net(b[0]), 1), b[1]).sum();
  return hits.item<std::int64_t>();
}

void progress(int epoch, std::int64_t done, std::int64_t total, double seconds) {
  const int width = 30, filled = static_cast<int>(width * done / total);
  std::fprintf(stderr, "\repoch %2d [%s%s] %lld/%lld  %.0f s", epoch,
               std::string(filled, '=').c_str(), std::string(width - filled, ' ').c_str(),
               static_cast<long long>(done), static_cast<long long>(total), seconds);
  if (done == total) std::fprintf(stderr, "\r%*s\r", width + 50, "");
}

// The libtorch twin's files in `dir` (created): the initial state_dict of `net`, and the
// order in which the DataLoader will visit the `n` samples in each of `epochs` epochs: the
// randperm(n) of a generator seeded with seed + epoch, as the training loop seeds it.
void write_twin_files(const nn::Module& net, const std::filesystem::path& dir, std::int64_t n,
                      std::uint64_t seed, int epochs) {
  std::filesystem::create_directories(dir);
  save(net, dir / "init.safetensors", {{"model", "d2l-resnet18"}});
  nn::NamedTensors order;
  for (int e = 1; e <= epochs; ++e) {
    Generator g(seed + static_cast<std::uint64_t>(e));
    order.push_back("epoch" + std::to_string(e), randperm(n, g));
  }
  save(order, dir / "order.safetensors");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train D2L's ResNet-18 on Fashion-MNIST on try_gpu()"};
  app.set_version_flag(
      "--version", "resnet18_fashion_mnist (hetero " + std::string(hetero::version().string) + ")");
  int epochs = 4, stop_after = 0, workers = 2;
  std::int64_t batch_size = 128;
  double lr = 0, weight_decay = 5e-4;
  std::string optimizer = "sgd", schedule_name = "onecycle";
  bool augment = false;
  std::string twin_files;
  hetero::examples::ImageTrainingOptions o;
  o.data = data::kFashionMnistDebianDir;
  auto& [data_dir, checkpoint, device_name, limit, test_limit, min_accuracy, seed, resume, quiet,
         expect_drop] = o;
  app.add_option("--epochs", epochs, "passes over the training set (the schedule's length)")
      ->check(hetero::examples::positive());
  app.add_option("--batch-size", batch_size, "minibatch size")->check(hetero::examples::positive());
  app.add_option("--optimizer", optimizer, "sgd (momentum 0.9) or adam")
      ->check(CLI::IsMember({"sgd", "adam"}));
  app.add_option("--schedule", schedule_name, "onecycle, cosine or none (stepped per minibatch)")
      ->check(CLI::IsMember({"onecycle", "cosine", "none"}));
  app.add_option("--lr", lr, "peak learning rate (default: 0.1 for sgd, 2e-3 for adam)")
      ->check(hetero::examples::positive());
  app.add_option("--weight-decay", weight_decay, "L2 penalty of sgd (adam: none)")
      ->check(hetero::examples::non_negative());
  app.add_flag("--augment", augment, "random crop (padding 2) and horizontal flip");
  app.add_option("--workers", workers, "DataLoader worker threads")
      ->check(hetero::examples::non_negative());
  app.add_option("--stop-after", stop_after,
                 "stop (checkpointed) after this many epochs of the --epochs schedule, as if "
                 "interrupted")
      ->check(hetero::examples::non_negative());
  app.add_option("--twin-files", twin_files,
                 "write the initial weights and the data order to DIR for the libtorch twin "
                 "(bench/twins/resnet18_libtorch --twin-files DIR)");
  hetero::examples::add_image_training_options(
      app, o, "save model, optimiser and schedule after every epoch",
      "initialisation, shuffling and augmentation seed");
  CLI11_PARSE(app, argc, argv);
  if (resume && checkpoint.empty()) {
    std::cerr << "resnet18_fashion_mnist: --resume needs --checkpoint FILE\n";
    return 2;
  }
  if (!twin_files.empty() && (resume || augment)) {
    std::cerr << "resnet18_fashion_mnist: --twin-files describes a run from the start without "
                 "--augment (the twin has neither resume nor augmentation)\n";
    return 2;
  }

  try {
    const Device dev = device_name.empty() ? try_gpu() : Device(device_name);
    const auto train_raw = data::fashion_mnist(data_dir, true, limit);
    const auto test_raw = data::fashion_mnist(data_dir, false, test_limit);
    const auto normalized = [](const std::shared_ptr<data::TensorDataset>& s) {
      return std::make_shared<data::TensorDataset>(std::vector<Tensor>{
          data::transforms::normalize(s->tensors()[0], {kMean}, {kStd}), s->tensors()[1]});
    };
    const auto train_set = normalized(train_raw), test_set = normalized(test_raw);
    std::shared_ptr<data::TransformDataset> augmented;
    if (augment)
      augmented = std::make_shared<data::TransformDataset>(
          train_set,
          [](data::Example e, data::SampleRandom& r) {
            e[0] = data::transforms::random_horizontal_flip(
                data::transforms::random_crop(e[0], 28, 28, 2, r), r);
            return e;
          },
          seed);
    Generator shuffle;
    data::DataLoader train(augment ? std::shared_ptr<const data::Dataset>(augmented) : train_set,
                           {.batch_size = batch_size,
                            .shuffle = true,
                            .num_workers = workers,
                            .pin_memory = !dev.is_cpu(),
                            .device = dev,
                            .generator = &shuffle});
    data::DataLoader test(
        test_set,
        {.batch_size = 1000, .num_workers = workers, .pin_memory = !dev.is_cpu(), .device = dev});
    std::printf("fashion-mnist: %lld train / %lld test images from %s, training on %s\n",
                static_cast<long long>(train_set->size()), static_cast<long long>(test_set->size()),
                data_dir.c_str(), dev.str().c_str());

    manual_seed(seed);
    nn::Sequential net = resnet::make_resnet18();
    if (!twin_files.empty()) write_twin_files(net, twin_files, train_set->size(), seed, epochs);
    net.to(dev);
    std::unique_ptr<optim::Optimizer> opt;
    if (optimizer == "adam")
      opt = std::make_unique<optim::Adam>(net.parameters(),
                                          optim::AdamOptions{.lr = lr > 0 ? lr : 2e-3});
    else
      opt = std::make_unique<optim::SGD>(
          net.parameters(),
          optim::SGDOptions{
              .lr = lr > 0 ? lr : 0.1, .momentum = 0.9, .weight_decay = weight_decay});
    const double peak = opt->lr(0);
    const std::int64_t steps = train.size(), total_steps = steps * epochs;
    std::unique_ptr<optim::LRScheduler> schedule;
    if (schedule_name == "onecycle")
      schedule = std::make_unique<optim::OneCycleLR>(
          *opt, optim::OneCycleLROptions{.max_lr = {peak}, .total_steps = total_steps});
    else if (schedule_name == "cosine")
      schedule = std::make_unique<optim::CosineAnnealingLR>(*opt, total_steps);
    const std::string optimizer_file = checkpoint + ".optimizer",
                      schedule_file = checkpoint + ".schedule";
    int first_epoch = 1;
    if (resume) {
      const std::string epoch = load_metadata(checkpoint).at("epoch");
      for (const std::string& f : {optimizer_file, schedule_file}) {
        if (f == schedule_file && !schedule) continue;
        const Metadata m = load_metadata(f);
        if (m.count("epoch") == 0 || m.at("epoch") != epoch || m.count("run") == 0 ||
            m.at("run") != optimizer + "/" + schedule_name)
          throw std::runtime_error(f + " does not hold the " + optimizer + "/" + schedule_name +
                                   " state of epoch " + epoch + " of " + checkpoint);
      }
      load(net, checkpoint, dev);
      opt->load_state_dict(load_file(optimizer_file, dev));
      if (schedule) schedule->load_state_dict(load_file(schedule_file));
      first_epoch = std::stoi(epoch) + 1;
      std::printf("resumed from %s after epoch %d\n", checkpoint.c_str(), first_epoch - 1);
    }
    nn::CrossEntropyLoss criterion(Tensor(), /*check_targets=*/false);  // labels checked on reading
    const bool bar = !quiet && isatty(STDERR_FILENO);
    const std::int64_t tenth = std::max<std::int64_t>(1, steps / 10);
    const int last_epoch = stop_after > 0 ? std::min(stop_after, epochs) : epochs;
    double accuracy = -1;
    bool dropped = true;
    for (int epoch = first_epoch; epoch <= last_epoch; ++epoch) {
      shuffle.manual_seed(seed + static_cast<std::uint64_t>(epoch));
      if (augmented) augmented->set_epoch(static_cast<std::uint64_t>(epoch));
      net.train();
      const auto start = Clock::now();
      double data_seconds = 0;
      Tensor loss_sum = zeros({}, dev), hits = zeros({}, TensorOptions(dev).dtype(DType::int64));
      Tensor head = zeros({}, dev), tail = zeros({}, dev);  // step losses, first and last tenth
      std::int64_t step = 0, seen = 0;
      auto wait = Clock::now();
      for (auto it = train.begin(); it != train.end(); ++it, ++step) {
        data_seconds += seconds_since(wait);
        const Tensor& x = (*it)[0];
        const Tensor& y = (*it)[1];
        const Tensor logits = net(x);
        const Tensor loss = criterion(logits, y);
        opt->zero_grad();
        loss.backward();
        opt->step();
        if (schedule) schedule->step();
        const std::int64_t len = x.size(0);
        seen += len;
        loss_sum = loss_sum + loss.detach() * static_cast<double>(len);
        if (step < tenth) head = head + loss.detach();
        if (step >= steps - tenth) tail = tail + loss.detach();
        hits = hits + eq(argmax(logits.detach(), 1), y).sum();
        if (bar && (step % 5 == 4 || step + 1 == steps))
          progress(epoch, step + 1, steps, seconds_since(start));
        wait = Clock::now();
      }
      const double loss = loss_sum.item<double>() / static_cast<double>(seen);
      const double train_accuracy =
          static_cast<double>(hits.item<std::int64_t>()) / static_cast<double>(seen);
      const double seconds = seconds_since(start);
      net.eval();
      accuracy =
          static_cast<double>(correct(net, test, dev)) / static_cast<double>(test_set->size());
      std::printf(
          "epoch %2d  loss %.4f  train acc %.3f  test acc %.4f  %.1f s (%.0f images/s, "
          "waiting for data %.1f%%)  lr %.2e\n",
          epoch, loss, train_accuracy, accuracy, seconds, static_cast<double>(seen) / seconds,
          100 * data_seconds / seconds, opt->lr(0));
      const double first = head.item<double>() / static_cast<double>(tenth),
                   last = tail.item<double>() / static_cast<double>(tenth);
      std::printf("          mean loss of the first tenth of steps %.4f, of the last %.4f\n", first,
                  last);
      dropped = dropped && last < first;
      std::fflush(stdout);
      if (!checkpoint.empty()) {
        // The optimiser's and the schedule's states first: a checkpoint names an epoch only
        // once all three are written.
        const Metadata m{{"epoch", std::to_string(epoch)},
                         {"run", optimizer + "/" + schedule_name}};
        save(opt->state_dict(), optimizer_file, m);
        if (schedule) save(schedule->state_dict(), schedule_file, m);
        save(net, checkpoint, {{"epoch", std::to_string(epoch)}, {"model", "d2l-resnet18"}});
      }
    }
    if (accuracy < 0) {
      net.eval();
      accuracy =
          static_cast<double>(correct(net, test, dev)) / static_cast<double>(test_set->size());
    }
    std::printf("test accuracy %.4f on %s\n", accuracy, dev.str().c_str());
    if (expect_drop && !dropped) {
      std::printf("the loss did not fall within every epoch (--expect-loss-drop)\n");
      return 1;
    }
    return accuracy < min_accuracy ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "resnet18_fashion_mnist: " << e.what() << "\n";
    return 2;
  }
}
