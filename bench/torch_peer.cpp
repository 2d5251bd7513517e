#include "torch_peer.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/api/include/torch/version.h>

#include <vector>

namespace bench::torch {

void set_threads(int threads) { at::set_num_threads(threads); }
std::string version() { return "libtorch " TORCH_VERSION; }

std::function<void()> gemm(std::int64_t n, bool f64) {
  const auto dt = f64 ? at::kDouble : at::kFloat;
  at::Tensor a = at::rand({n, n}, dt), b = at::rand({n, n}, dt);
  return [a, b] { at::Tensor c = a.matmul(b); };
}

std::function<void()> add_2x3() {
  at::Tensor a = at::ones({2, 3}), b = at::ones({2, 3});
  return [a, b] { at::Tensor c = a + b; };
}

std::function<void()> ones_2x3() {
  return [] { at::Tensor c = at::ones({2, 3}); };
}

std::function<void()> matmul_2x2() {
  at::Tensor a = at::rand({2, 2}), b = at::rand({2, 2});
  return [a, b] { at::Tensor c = a.matmul(b); };
}

std::function<void()> matmul_100() {
  at::Tensor a = at::rand({100, 100}), b = at::rand({100, 100});
  return [a, b] { at::Tensor c = a.matmul(b); };
}

std::function<void()> exercise1() {
  return [] {
    for (int i = 0; i < 100; ++i) {
      at::Tensor A = at::ones({500, 500}), B = at::ones({500, 500});
      at::Tensor C = A.matmul(B);
    }
  };
}

std::function<void()> exercise3(bool per_step) {
  at::Tensor a = at::rand({100, 100}), b = at::rand({100, 100});
  return [a, b, per_step] {
    if (per_step) {
      std::vector<float> norms;
      norms.reserve(1000);
      for (int i = 0; i < 1000; ++i) norms.push_back(a.matmul(b).norm().item<float>());
    } else {
      at::Tensor log = at::empty({1000});
      for (int i = 0; i < 1000; ++i) log[i] = a.matmul(b).norm();
      std::vector<float> norms(log.data_ptr<float>(), log.data_ptr<float>() + 1000);
    }
  };
}

}  // namespace bench::torch
