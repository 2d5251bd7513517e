// SPDX-License-Identifier: Apache-2.0
// Model parallelism, the companion article's VeryBigModule scaled down: the first half
// of a network on one device, the second on another, the activation moved explicitly
// between them (nothing is copied implicitly); backward() sends the gradient back across
// the same boundary, and each parameter's gradient stays on its own device.
// Devices: two GPUs if present, else cpu:0 / cpu:1 (HETERO_CPU_DEVICES=2), else cpu twice;
// `--devices cuda:0,cpu` names them.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

#include <hetero/hetero.hpp>

using namespace hetero;

class VeryBigModule : public nn::Module {
 public:
  VeryBigModule(const Device& first, const Device& second) : first_(first), second_(second) {
    front_ = std::make_shared<nn::Sequential>(nn::Linear(32, 64), nn::ReLU(), nn::Linear(64, 64),
                                              nn::ReLU());
    back_ = std::make_shared<nn::Sequential>(nn::Linear(64, 32), nn::ReLU(), nn::Linear(32, 1));
    register_module("front", front_);
    register_module("back", back_);
    front_->to(first);
    back_->to(second);
  }
  /// x on any device -> [N, 1] on the second device.
  Tensor forward(const Tensor& x) override {
    const Tensor h = (*front_)(x.to(first_));
    return (*back_)(h.to(second_));  // the explicit move between the halves
  }

 private:
  Device first_, second_;
  std::shared_ptr<nn::Sequential> front_, back_;
};

int main(int argc, char** argv) {
  CLI::App app{
      "Model parallelism: the front half of a network on one device, the back half on another"};
  app.set_version_flag("--version",
                       "model_parallel (hetero " + std::string(hetero::version().string) + ")");
  std::vector<std::string> device_names;
  app.add_option("--devices", device_names,
                 "the two devices, e.g. cuda:0,cpu (default: two GPUs, else cpu:0,cpu:1)")
      ->delimiter(',')
      ->expected(2);
  CLI11_PARSE(app, argc, argv);
  try {
    const auto gpus = try_all_gpus();
    Device a = Device::cpu(), b = Device::cpu();
    if (!device_names.empty()) {
      a = Device(device_names[0]);
      b = Device(device_names[1]);
    } else if (gpus.size() >= 2) {
      a = gpus[0];
      b = gpus[1];
    } else if (device_count("cpu") >= 2) {
      a = Device("cpu:0");
      b = Device("cpu:1");
    }
    std::cout << "front half on " << a << ", back half on " << b << "\n";
    manual_seed(0);
    VeryBigModule model(a, b);
    // A smooth target: y = sum(sigmoid(x) - 0.5) over the features.
    const Tensor x = randn({256, 32});
    const Tensor y = (x.sigmoid() - 0.5).sum(1, true).to(b);
    nn::MSELoss criterion;
    optim::SGD sgd(model.parameters(), {.lr = 0.05, .momentum = 0.9});
    reset_transfer_stats();
    for (int step = 1; step <= 30; ++step) {
      const Tensor loss = criterion(model(x), y);
      sgd.zero_grad();
      loss.backward();
      sgd.step();
      if (step == 1 || step % 10 == 0)
        std::printf("step %2d  loss %.5f\n", step, loss.item<double>());
    }
    for (const auto& [name, p] : model.named_parameters())
      std::cout << "  " << name << " on " << p.device() << ", grad on " << p.grad().device()
                << "\n";
    const auto sa = transfer_stats(a), sb = transfer_stats(b);
    std::printf("device-to-device copies: %llu into %s (gradients), %llu into %s (activations)\n",
                static_cast<unsigned long long>(sa.device_to_device), a.str().c_str(),
                static_cast<unsigned long long>(sb.device_to_device), b.str().c_str());
    return 0;
  } catch (const Error& e) {
    std::cerr << "model_parallel: " << e.what() << "\n";
    return 1;
  }
}
