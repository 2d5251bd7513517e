// SPDX-License-Identifier: Apache-2.0
// The "GPU" chapter of Dive into Deep Learning (5.6), step by step, in hetero.
// Each step prints what the chapter prints. Without a GPU, try_gpu() falls back to cpu
// as in the chapter; `--devices cpu:0,cpu:1` (with HETERO_CPU_DEVICES=2) names the two
// devices that stand in for the chapter's two GPUs, so the cross-device steps run.
#include <iomanip>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

void step(const std::string& code) { std::cout << "\n>>> " << code << '\n'; }

void print_device_listing() {
  // nvidia-smi's place: the devices hetero sees and every plugin's status.
  for (const auto& d : all_devices()) {
    const auto info = device_info(d);
    std::cout << std::left << std::setw(10) << d.str() << std::setw(6)
              << device_kind_name(info.properties.kind) << info.properties.name << "  "
              << info.memory.allocated / (1 << 20) << "MiB / "
              << info.properties.total_memory / (1 << 20) << "MiB\n";
  }
  for (const auto& s : backend_status())
    std::cout << "plugin " << (s.name.empty() ? "?" : s.name) << ": "
              << (s.loaded ? "loaded, " + std::to_string(s.devices) + " device(s)" : "not loaded")
              << (s.reason.empty() ? "" : " (" + s.reason + ")") << "  [" << s.path << "]\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The GPU chapter of Dive into Deep Learning, in hetero"};
  app.set_version_flag("--version",
                       "chapter_gpu (hetero " + std::string(hetero::version().string) + ")");
  std::vector<std::string> device_names;
  app.add_option("--devices", device_names,
                 "two devices to use in place of try_gpu() and try_gpu(1), e.g. cpu:0,cpu:1")
      ->delimiter(',')
      ->expected(2);
  CLI11_PARSE(app, argc, argv);

  try {
    std::vector<Device> chosen;
    for (const auto& n : device_names) chosen.emplace_back(n);
    auto gpu = [&](int i) {
      return chosen.empty() ? try_gpu(i) : chosen.at(static_cast<std::size_t>(i));
    };

    std::cout << "5.6 GPUs — the chapter in hetero\n";
    step("!nvidia-smi  (hetero-smi)");
    print_device_listing();

    std::cout << "\n5.6.1 Computing devices";
    step("Device(\"cpu\"), Device(\"cuda\"), Device(\"cuda:1\")");
    std::cout << Device("cpu") << ", " << Device("cuda") << ", " << Device("cuda:1") << '\n';
    step("device_count(\"cuda\")");
    std::cout << device_count("cuda") << '\n';
    step("num_gpus()");
    std::cout << num_gpus() << '\n';
    step("try_gpu(), try_gpu(10), try_all_gpus()");
    std::cout << try_gpu() << ", " << try_gpu(10) << ", " << try_all_gpus() << '\n';
    if (!chosen.empty()) std::cout << "(standing in for the two GPUs: " << chosen << ")\n";

    std::cout << "\n5.6.2 Tensors and GPUs";
    Tensor x = tensor({1, 2, 3});
    step("x = tensor({1, 2, 3}); x.device()");
    std::cout << x.device() << '\n';

    std::cout << "\n5.6.2.1 Storage on the GPU";
    Tensor X = ones({2, 3}, gpu(0));
    step("X = ones({2, 3}, try_gpu()); X");
    std::cout << X << '\n';
    Tensor Y = rand({2, 3}, gpu(1));
    step("Y = rand({2, 3}, try_gpu(1)); Y");
    std::cout << Y << '\n';

    std::cout << "\n5.6.2.2 Copying";
    step("X + Y");
    try {
      std::cout << X + Y << '\n';
    } catch (const DeviceMismatchError& e) {
      std::cout << "DeviceMismatchError: " << e.what() << '\n';
    }
    Tensor Z = X.to(Y.device());
    step("Z = X.to(Y.device()); X; Z");
    std::cout << X << '\n' << Z << '\n';
    step("Y + Z");
    std::cout << Y + Z << '\n';
    step("Z.to(Z.device()).is_same(Z)");
    std::cout << std::boolalpha << Z.to(Z.device()).is_same(Z) << '\n';
    step("Z.copy_to(Z.device()).is_same(Z)");
    std::cout << Z.copy_to(Z.device()).is_same(Z) << '\n';

    std::cout << "\n5.6.3 Neural networks and GPUs";
    nn::Sequential net{nn::Linear(3, 1)};
    net.to(gpu(0));
    step("net = Sequential{Linear(3, 1)}; net.to(try_gpu()); net(X)");
    std::cout << net(X) << '\n';
    step("net[0].weight().device()");
    std::cout << net[0].weight().device() << '\n';
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
}
