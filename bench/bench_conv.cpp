// SPDX-License-Identifier: Apache-2.0
// Convolution on the cpu (issue #27): conv2d forward + backward at LeNet's two layer shapes
// (batch 256), and one SGD step of D2L's LeNet (an epoch of Fashion-MNIST is 235 of them),
// hetero vs libtorch (its own tuned convolution kernels), in one process. Rows
// "conv/NAME/hetero" and "conv/NAME/libtorch". Target: conv2d forward + backward >= 0.8x
// libtorch's speed (hetero's time <= 1.25x libtorch's).
#include <string>

#include "common.hpp"
#if HETERO_BENCH_HAVE_TORCH
#include "torch_peer.hpp"
#endif
#include "../examples/lenet_fashion_mnist/lenet.hpp"

namespace {

using namespace hetero;

std::function<void()> conv_step(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t o,
                                std::int64_t k, std::int64_t padding) {
  Tensor x = rand({n, c, h, h}).requires_grad_(), w = rand({o, c, k, k}).requires_grad_(),
         b = rand({o}).requires_grad_();
  return [x, w, b, padding]() mutable {
    const Tensor y = conv2d(x, w, b, 1, padding);
    y.backward(ones_like(y));
    x.mutable_grad() = Tensor();
    w.mutable_grad() = Tensor();
    b.mutable_grad() = Tensor();
    synchronize(Device::cpu());
  };
}

std::function<void()> lenet_step(std::int64_t batch) {
  auto net = std::make_shared<nn::Sequential>(lenet::make());
  auto sgd = std::make_shared<optim::SGD>(net->parameters(), optim::SGDOptions{.lr = 0.9});
  auto loss_fn = std::make_shared<nn::CrossEntropyLoss>(Tensor(), false);
  const Tensor x = rand({batch, 1, 28, 28});
  const Tensor y = (rand({batch}) * 10).to(DType::int64);
  return [net, sgd, loss_fn, x, y] {
    const Tensor loss = (*loss_fn)((*net)(x), y);
    sgd->zero_grad();
    loss.backward();
    sgd->step();
    synchronize(Device::cpu());
  };
}

void register_all() {
  const auto add = [](const std::string& name, std::function<void()> hetero_op,
                      [[maybe_unused]] std::function<void()> torch_op) {
    bench::add("conv/" + name + "/hetero", std::move(hetero_op));
#if HETERO_BENCH_HAVE_TORCH
    bench::add_peer("conv/" + name + "/libtorch", std::move(torch_op));
#endif
  };
  std::function<void()> none;
#if HETERO_BENCH_HAVE_TORCH
  using namespace bench::torch;
  add("conv1_fwd_bwd", conv_step(256, 1, 28, 6, 5, 2), conv2d_step(256, 1, 28, 6, 5, 2));
  add("conv2_fwd_bwd", conv_step(256, 6, 14, 16, 5, 0), conv2d_step(256, 6, 14, 16, 5, 0));
  add("lenet_step", lenet_step(256), bench::torch::lenet_step(256));
#else
  add("conv1_fwd_bwd", conv_step(256, 1, 28, 6, 5, 2), none);
  add("conv2_fwd_bwd", conv_step(256, 6, 14, 16, 5, 0), none);
  add("lenet_step", lenet_step(256), none);
#endif
}

}  // namespace

int main(int argc, char** argv) {
#if HETERO_BENCH_HAVE_TORCH
  bench::torch::set_threads(bench::threads());
#endif
  register_all();
  return bench::run(argc, argv);
}
