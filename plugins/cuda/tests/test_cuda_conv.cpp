// SPDX-License-Identifier: Apache-2.0
// Convolution on cuda:0 (cuDNN's kernels where the plugin has cuDNN, the GEMM composition
// elsewhere) against the cpu backend: random geometries (groups, stride, padding,
// dilation, batch), each floating dtype, the output and the three gradients. Runs wherever a
// CUDA device is present (skips, saying so, where none is).
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include <hetero/hetero.hpp>
#include <hetero/sdk/backend.hpp>
#include <hetero/sdk/find_backend.hpp>

using namespace hetero;

namespace {

class CudaConv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (device_count("cuda") == 0) GTEST_SKIP() << "no CUDA device";
  }
  const Device gpu{"cuda:0"};
};

// max |a - b| <= tol * max(1, max |b|): the error of a sum of products scales with its terms.
void expect_close(const Tensor& a, const Tensor& b, double tol, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const auto x = a.cpu().to(DType::float64).to_vector<double>();
  const auto y = b.cpu().to(DType::float64).to_vector<double>();
  double scale = 1, worst = 0;
  for (double v : y) scale = std::max(scale, std::fabs(v));
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(x[i] - y[i]));
  EXPECT_LE(worst, tol * scale) << what << ": largest difference " << worst << " of " << scale;
}

double tolerance(DType t) {
  switch (t) {
    case DType::float64:
      return 1e-12;
    case DType::float32:
      return 1e-5;
    case DType::float16:
      return 4e-3;
    default:
      return 3e-2;  // bfloat16: 8 significant bits
  }
}

}  // namespace

// Whether cuDNN serves convolution follows whether libcudnn can be loaded in this process
// (where it cannot, the core composes convolution from GEMM and the results below still
// hold).
TEST_F(CudaConv, UsesCudnnWhereItCanBeLoaded) {
  void* lib = dlopen("libcudnn.so.9", RTLD_LAZY | RTLD_LOCAL);
  const bool loadable = lib != nullptr;
  if (lib) dlclose(lib);
  const auto cuda = find_backend("cuda");
  ASSERT_NE(cuda, nullptr);
  // A build without cuDNN's headers says no everywhere; one with them says yes where the
  // library loads (HETERO_CUDNN_PATH, the toolkit's copy, is tried first).
  const bool yes = cuda->supports(Conv2dOp::forward, DType::float32, 0);
  RecordProperty("cudnn", yes ? "yes" : "no");
  if (yes) {
    for (Conv2dOp op : {Conv2dOp::forward, Conv2dOp::backward_input, Conv2dOp::backward_weight}) {
      for (DType t : {DType::float32, DType::float64, DType::float16})
        EXPECT_TRUE(cuda->supports(op, t, 0)) << op_name(op) << " " << dtype_name(t);
      // cuDNN's bfloat16 backward-data rounded partial sums (docs/semantics.md row 72).
      EXPECT_FALSE(cuda->supports(op, DType::bfloat16, 0)) << op_name(op);
    }
    EXPECT_FALSE(cuda->supports(Conv2dOp::forward, DType::int32, 0));
    EXPECT_FALSE(cuda->supports(Conv2dOp::forward_bias, DType::float32, 0));
  } else {
    EXPECT_FALSE(loadable) << "libcudnn.so.9 loads here but the cuda plugin does not use it";
  }
}

TEST_F(CudaConv, RandomGeometriesMatchCpuInEveryDtype) {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int round = 0; round < 48; ++round) {
    const std::int64_t groups = pick(1, 3), n = pick(1, 5), c = groups * pick(1, 4),
                       o = groups * pick(1, 4), kh = pick(1, 4), kw = pick(1, 4), sh = pick(1, 3),
                       sw = pick(1, 3), ph = pick(0, 2), pw = pick(0, 2), dh = pick(1, 2),
                       dw = pick(1, 2);
    const std::int64_t h = dh * (kh - 1) + 1 + pick(0, 9) - 2 * ph,
                       w = dw * (kw - 1) + 1 + pick(0, 9) - 2 * pw;
    if (h < 1 || w < 1) continue;
    const DType t = std::array{DType::float32, DType::float64, DType::float16,
                               DType::bfloat16}[static_cast<std::size_t>(round % 4)];
    const std::string what = "round " + std::to_string(round) + " " + std::string(dtype_name(t)) +
                             " n" + std::to_string(n) + " c" + std::to_string(c) + " o" +
                             std::to_string(o) + " " + std::to_string(h) + "x" + std::to_string(w) +
                             " k" + std::to_string(kh) + "x" + std::to_string(kw) + " g" +
                             std::to_string(groups);
    manual_seed(static_cast<std::uint64_t>(round));
    // The operands in the dtype, then the cpu's reference computed in float32 or float64
    // from the same rounded values (the cpu runs 16-bit convolution in float32 too).
    const Tensor x = randn({n, c, h, w}).to(t), wt = randn({o, c / groups, kh, kw}).to(t),
                 b = randn({o}).to(t);
    const DType ref = t == DType::float64 ? DType::float64 : DType::float32;
    auto run = [&](const Device& d, DType as) {
      Tensor xi = x.to(d).to(as).detach().requires_grad_(true);
      Tensor wi = wt.to(d).to(as).detach().requires_grad_(true);
      Tensor bi = b.to(d).to(as).detach().requires_grad_(true);
      Tensor y = conv2d(xi, wi, bi, {sh, sw}, {ph, pw}, {dh, dw}, groups);
      // A non-uniform output gradient: y's own values, detached.
      y.backward(y.detach() * 0.5 + 0.25);
      return std::array{y, xi.grad(), wi.grad(), bi.grad()};
    };
    const auto on_gpu = run(gpu, t);
    const auto on_cpu = run(Device::cpu(), ref);
    const char* names[] = {"output", "input grad", "weight grad", "bias grad"};
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(on_gpu[i].dtype(), t) << what << " " << names[i];
      expect_close(on_gpu[i].to(ref), on_cpu[i], tolerance(t) * (i == 0 ? 1 : 4),
                   what + " " + names[i]);
    }
  }
}

// Runs twice give identical bits (hetero's kernels are deterministic; the plugin picks only
// deterministic cuDNN algorithms), the ResNet-18 resume check's premise.
TEST_F(CudaConv, GradientsAreDeterministic) {
  manual_seed(5);
  const Tensor x = randn({8, 16, 20, 20}, gpu), w = randn({32, 16, 3, 3}, gpu);
  auto grads = [&] {
    Tensor xi = x.detach().requires_grad_(true), wi = w.detach().requires_grad_(true);
    Tensor y = conv2d(xi, wi, {}, 2, 1);
    y.backward(ones_like(y));
    return std::array{xi.grad().cpu(), wi.grad().cpu()};
  };
  const auto first = grads(), second = grads();
  EXPECT_TRUE(equal(first[0], second[0]));
  EXPECT_TRUE(equal(first[1], second[1]));
}
