// SPDX-License-Identifier: Apache-2.0
// Convolution on cuda:0 (issue #49's GPU row): conv2d with its bias, forward alone and
// forward + backward (the input's, weight's and bias's gradients), at LeNet's two layers
// (batch 256) and ResNet-18's 3x3 layers (batch 32; 64-512 channels, stride 1 and 2, 32x32 to
// 4x4), float32 and a float16 row. Prints "row hetero_ms" lines; bench/torch_conv_gpu.py
// times the same rows in PyTorch in its own process and joins the two (--hetero FILE).
// Median of --reps timed repetitions after a warm-up, the device synchronised around each.
// Without a CUDA device it says so and exits 0. Usage: bench_conv_gpu [--reps N]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <hetero/hetero.hpp>

namespace {

using namespace hetero;

/// One row: conv2d of x [n, c, h, h] with an [o, c, k, k] weight and a bias [o].
struct Row {
  const char* name;
  std::int64_t n, c, h, o, k, padding, stride;
  DType dtype;
  bool backward;
};

// The rows of bench/torch_conv_gpu.py (same names, same order).
const std::vector<Row>& rows() {
  static const std::vector<Row> r = {
      {"lenet1_fwd", 256, 1, 28, 6, 5, 2, 1, DType::float32, false},
      {"lenet1_fwdbwd", 256, 1, 28, 6, 5, 2, 1, DType::float32, true},
      {"lenet2_fwd", 256, 6, 14, 16, 5, 0, 1, DType::float32, false},
      {"lenet2_fwdbwd", 256, 6, 14, 16, 5, 0, 1, DType::float32, true},
      {"r64_32_fwd", 32, 64, 32, 64, 3, 1, 1, DType::float32, false},
      {"r64_32_fwdbwd", 32, 64, 32, 64, 3, 1, 1, DType::float32, true},
      {"r64_128_s2_fwdbwd", 32, 64, 32, 128, 3, 1, 2, DType::float32, true},
      {"r128_16_fwdbwd", 32, 128, 16, 128, 3, 1, 1, DType::float32, true},
      {"r256_8_fwdbwd", 32, 256, 8, 256, 3, 1, 1, DType::float32, true},
      {"r512_4_fwdbwd", 32, 512, 4, 512, 3, 1, 1, DType::float32, true},
      {"r512_7_fwd", 32, 512, 7, 512, 3, 1, 1, DType::float32, false},
      {"r512_7_fwdbwd", 32, 512, 7, 512, 3, 1, 1, DType::float32, true},
      {"r64_32_f16_fwdbwd", 32, 64, 32, 64, 3, 1, 1, DType::float16, true},
  };
  return r;
}

double median_ms(int reps, const Device& d, auto&& fn) {
  fn();  // warm-up: algorithm choice, pool blocks, lazy loading
  synchronize(d);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    synchronize(d);
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"conv2d on cuda:0, each row's median time in ms"};
  int reps = 30;
  app.add_option("--reps", reps, "timed repetitions per row")->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);
  if (device_count("cuda") == 0) {
    std::printf("bench_conv_gpu: no CUDA device; nothing to measure\n");
    return 0;
  }
  const Device gpu("cuda:0");
  std::printf("%-20s %10s\n", "row", "hetero_ms");
  for (const Row& r : rows()) {
    manual_seed(1);
    const TensorOptions on = TensorOptions(gpu).dtype(r.dtype);
    Tensor x = randn({r.n, r.c, r.h, r.h}, on).requires_grad_(r.backward);
    Tensor w = randn({r.o, r.c, r.k, r.k}, on).requires_grad_(r.backward);
    Tensor b = randn({r.o}, on).requires_grad_(r.backward);
    const double ms = median_ms(reps, gpu, [&] {
      Tensor y = conv2d(x, w, b, r.stride, r.padding);
      if (r.backward) y.backward(ones_like(y));
    });
    std::printf("%-20s %10.4f\n", r.name, ms);
  }
  return 0;
}
