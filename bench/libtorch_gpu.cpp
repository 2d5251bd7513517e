// SPDX-License-Identifier: Apache-2.0
// libtorch C++ on a CUDA device: the peer rows of bench_gpu's training section (exercise
// 3 with item() every step; the MLP training step 256 x 64 -> 512 -> 512 -> 10) and the
// 2x3 add, same shapes and timing method. Debian's libtorch-dev has no CUDA, so this is
// built where a CUDA-enabled libtorch exists (the PyTorch wheel ships one): see
// bench/libtorch_gpu.sh. Prints the same row names as bench_gpu.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {

template <class F>
double median_time(int reps, F&& fn) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  if (!torch::cuda::is_available()) {
    std::printf("libtorch_gpu: no CUDA device for libtorch; nothing to measure\n");
    return 0;
  }
  const auto dev = torch::Device(torch::kCUDA, 0);
  const auto opt = torch::TensorOptions().device(dev);
  torch::manual_seed(5);
  auto a = torch::rand({100, 100}, opt), b = torch::rand({100, 100}, opt);
  float sink = 0;
  auto exercise3 = [&] {
    for (int i = 0; i < 1000; ++i) sink += torch::matmul(a, b).norm().item<float>();
  };
  exercise3();
  const double t3 = median_time(5, exercise3);

  torch::nn::Sequential net(torch::nn::Linear(64, 512), torch::nn::ReLU(),
                            torch::nn::Linear(512, 512), torch::nn::ReLU(),
                            torch::nn::Linear(512, 10));
  net->to(dev);
  torch::nn::CrossEntropyLoss criterion;
  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.01));
  const auto x = torch::randn({256, 64}, opt);
  const auto y =
      torch::arange(256, torch::TensorOptions().dtype(torch::kLong)).remainder(10).to(dev);
  auto step = [&] {
    sgd.zero_grad();
    auto loss = criterion(net->forward(x), y);
    loss.backward();
    sgd.step();
  };
  for (int i = 0; i < 20; ++i) step();
  torch::cuda::synchronize();
  const int steps = 200;
  const double tmlp = median_time(5,
                                  [&] {
                                    for (int i = 0; i < steps; ++i) step();
                                    torch::cuda::synchronize();
                                  }) /
                      steps;

  auto p = torch::ones({2, 3}, opt), q = torch::ones({2, 3}, opt);
  const int ops = 2000;
  auto adds = [&] {
    for (int i = 0; i < ops; ++i) auto r = p + q;
    torch::cuda::synchronize();
  };
  adds();
  const double tadd = median_time(5, adds) / ops;
  std::printf("device: cuda:0, libtorch %s\n", TORCH_VERSION);
  std::printf("%-40s %10.2f ms\n", "exercise 3, item() per step (1000 steps)", t3 * 1e3);
  std::printf("%-40s %10.3f ms\n", "MLP train step (256x64->512->512->10)", tmlp * 1e3);
  std::printf("%-40s %10.2f us/op\n", "2x3 add", tadd * 1e6);
  (void)sink;
  return 0;
}
