// SPDX-License-Identifier: Apache-2.0
// Convolution on the cpu (issues #27, #49): conv2d forward, and forward + backward, at
// LeNet's two layer shapes (batch 256) and four of ResNet-18's 3x3 layers (batch 32), some of
// them in bfloat16 too, the pooling and BatchNorm2d layers beside them, and one
// SGD step of D2L's LeNet (an epoch of Fashion-MNIST is 235 of them), hetero vs libtorch (its
// convolution is oneDNN's). Rows "conv/NAME/hetero" and "conv/NAME/libtorch"; bench/alone.py
// times each framework in its own process. Target (issue #49): >= 1.0x libtorch's speed.
#include <string>
#include <string_view>

#include "common.hpp"
#if HETERO_BENCH_HAVE_TORCH
#include "torch_peer.hpp"
#endif
#include "../examples/lenet_fashion_mnist/lenet.hpp"
#include "../examples/resnet18_fashion_mnist/resnet.hpp"

namespace {

using namespace hetero;

// conv2d of x [n, c, h, h] with a [o, c, k, k] weight and a bias: forward alone, or forward
// and backward (the gradients of input, weight and bias), in `dtype`; with `transposed`,
// conv_transpose2d with a [c, o, k, k] weight; as bench::torch::conv2d_step.
std::function<void()> conv_step(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t o,
                                std::int64_t k, std::int64_t padding, std::int64_t stride = 1,
                                bool backward = true, DType dtype = DType::float32,
                                bool transposed = false) {
  Tensor
      x = rand({n, c, h, h}).to(dtype).requires_grad_(backward),
      w = (transposed ? rand({c, o, k, k}) : rand({o, c, k, k})).to(dtype).requires_grad_(backward),
      b = rand({o}).to(dtype).requires_grad_(backward);
  return [x, w, b, padding, stride, backward, transposed]() mutable {
    const Tensor y =
        transposed ? conv_transpose2d(x, w, b, stride, padding) : conv2d(x, w, b, stride, padding);
    if (!backward) {
      synchronize(Device::cpu());
      return;
    }
    y.backward(ones_like(y));
    x.mutable_grad() = Tensor();
    w.mutable_grad() = Tensor();
    b.mutable_grad() = Tensor();
    synchronize(Device::cpu());
  };
}

// A pooling layer, as bench::torch::pool2d_step: "max", "avg" or "global".
std::function<void()> pool_step(const std::string& kind, std::int64_t n, std::int64_t c,
                                std::int64_t h, std::int64_t k, std::int64_t s, std::int64_t p,
                                bool backward) {
  const std::int64_t blocks = (h + 2 * p - k) / s + 1;  // fold's input: unfold's output
  Tensor x = (kind == "fold" ? rand({n, c * k * k, blocks * blocks}) : rand({n, c, h, h}))
                 .requires_grad_(backward);
  return [x, kind, h, k, s, p, backward]() mutable {
    const Tensor y = kind == "max"            ? max_pool2d(x, k, s, p)
                     : kind == "avg"          ? avg_pool2d(x, k, s, p)
                     : kind == "adaptive_max" ? adaptive_max_pool2d(x, k)
                     : kind == "unfold"       ? unfold(x, k, 1, p, s)
                     : kind == "fold"         ? fold(x, h, k, 1, p, s)
                                              : adaptive_avg_pool2d(x, 1);
    if (backward) {
      y.backward(ones_like(y));
      x.mutable_grad() = Tensor();
    }
    synchronize(Device::cpu());
  };
}

// A 3-d layer on x [n, c, d, h, h], as bench::torch::volume_step: "conv3d" (a [o, c, k, k, k]
// weight, padding p, a bias), "tconv3d" (conv_transpose3d by a [c, o, k, k, k] weight at
// stride k: a 3-D U-Net's up-convolution) or "maxpool3d" (kernel k).
std::function<void()> volume_step(const std::string& kind, std::int64_t n, std::int64_t c,
                                  std::int64_t d, std::int64_t h, std::int64_t o, std::int64_t k,
                                  std::int64_t p, bool backward) {
  Tensor x = rand({n, c, d, h, h}).requires_grad_(backward),
         w = (kind == "tconv3d" ? rand({c, o, k, k, k}) : rand({o, c, k, k, k}))
                 .requires_grad_(backward),
         b = rand({o}).requires_grad_(backward);
  return [x, w, b, kind, k, p, backward]() mutable {
    const Tensor y = kind == "conv3d"    ? conv3d(x, w, b, 1, p)
                     : kind == "tconv3d" ? conv_transpose3d(x, w, b, k)
                                         : max_pool3d(x, k);
    if (backward) {
      y.backward(ones_like(y));
      for (Tensor* t : {&x, &w, &b}) t->mutable_grad() = Tensor();
    }
    synchronize(Device::cpu());
  };
}

// BatchNorm2d in training mode, as bench::torch::batch_norm_step.
std::function<void()> batch_norm_step(std::int64_t n, std::int64_t c, std::int64_t h,
                                      bool backward) {
  auto bn = std::make_shared<nn::BatchNorm2d>(c);
  Tensor x = rand({n, c, h, h}).requires_grad_(backward);
  return [bn, x, backward]() mutable {
    const Tensor y = (*bn)(x);
    if (backward) {
      y.backward(ones_like(y));
      x.mutable_grad() = Tensor();
      for (Tensor& p : bn->parameters()) p.mutable_grad() = Tensor();
    }
    synchronize(Device::cpu());
  };
}

// One training step of `net` by optim::SGD with `options` on a random [batch, 1, 28, 28]
// batch of 10 classes: forward, cross entropy (targets not checked, as the examples' loops),
// backward, update.
std::function<void()> training_step(std::shared_ptr<nn::Sequential> net, optim::SGDOptions options,
                                    std::int64_t batch) {
  auto sgd = std::make_shared<optim::SGD>(net->parameters(), options);
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

// resnet18_fashion_mnist's network and optimiser (SGD, lr 0.1, momentum 0.9, weight decay
// 5e-4), as the example trains.
std::function<void()> resnet18_step(std::int64_t batch) {
  return training_step(std::make_shared<nn::Sequential>(resnet::make_resnet18(1, 10)),
                       {.lr = 0.1, .momentum = 0.9, .weight_decay = 5e-4}, batch);
}

std::function<void()> lenet_step(std::int64_t batch) {
  return training_step(std::make_shared<nn::Sequential>(lenet::make()), {.lr = 0.9}, batch);
}

// Issue #49's convolution rows beside LeNet's: ResNet-18's 3x3 layers at batch 32, stride 1
// and 2, 64-512 channels, on 32x32 (CIFAR-sized) and 14x14 / 7x7 maps (its last stage).
struct Layer {
  const char* name;
  std::int64_t n, c, h, o, k, padding, stride;
};
constexpr Layer kLayers[] = {
    {"conv1", 256, 1, 28, 6, 5, 2, 1},
    {"conv2", 256, 6, 14, 16, 5, 0, 1},
    // resnet18_fashion_mnist's stem: 7x7, stride 2, over 1-channel 28x28 images, batch 128
    {"resnet_stem_7x7_s2", 128, 1, 28, 64, 7, 3, 2},
    {"resnet_64_32x32", 32, 64, 32, 64, 3, 1, 1},
    {"resnet_64to128_s2", 32, 64, 32, 128, 3, 1, 2},
    {"resnet_256to512_s2_14x14", 32, 256, 14, 512, 3, 1, 2},
    {"resnet_512_7x7", 32, 512, 7, 512, 3, 1, 1},
};
// The layers also timed in bfloat16 (issue #49 item 1: oneDNN's bfloat16 kernels, which use
// AVX512_BF16 where the CPU has it; libtorch calls the same).
// The layers beside the convolutions (issue #49 item 1): ResNet-18's max-pool after its stem
// (ImageNet-sized: 112x112 maps at batch 32; the example's: 14x14 at batch 128), LeNet's 2x2
// average pool, the global average pool before the classifier, and BatchNorm2d in training
// mode at the example's and a CIFAR-sized shape.
struct Pool {
  const char* name;
  const char* kind;
  std::int64_t n, c, h, k, s, p;
};
constexpr Pool kPools[] = {
    {"maxpool_3x3_s2_64x112x112", "max", 32, 64, 112, 3, 2, 1},
    {"maxpool_3x3_s2_64x14x14", "max", 128, 64, 14, 3, 2, 1},
    {"avgpool_2x2_6x28x28", "avg", 256, 6, 28, 2, 2, 0},
    {"global_avgpool_512x7x7", "global", 32, 512, 7, 1, 1, 0},
    // unequal windows (30 into 7): the gathered route, not max_pool2d's
    {"adaptive_maxpool_7x7_256x30x30", "adaptive_max", 32, 256, 30, 7, 0, 0},
    // im2col and col2im of a ResNet layer's 3x3 windows (composed from narrow, stack, add)
    {"unfold_3x3_64x32x32", "unfold", 32, 64, 32, 3, 1, 1},
    {"fold_3x3_64x32x32", "fold", 32, 64, 32, 3, 1, 1},
};
struct Norm {
  const char* name;
  std::int64_t n, c, h;
};
constexpr Norm kNorms[] = {
    {"batchnorm_64x32x32", 32, 64, 32},
    {"batchnorm_64x14x14", 128, 64, 14},
    {"batchnorm_512x7x7", 32, 512, 7},
};
// Transposed convolutions (conv_transpose2d): a DCGAN generator's 4x4 stride-2 upsampling
// (256 -> 128 channels, 8x8 -> 16x16, batch 64) and D2L 14.11's FCN head, 21 classes upsampled
// 32x by a 64x64 kernel (10x10 -> 320x320, batch 2).
constexpr Layer kTransposed[] = {
    {"tconv_dcgan_256to128_8x8", 64, 256, 8, 128, 4, 1, 2},
    {"tconv_fcn_21_s32_10x10", 2, 21, 10, 21, 64, 16, 32},
};
// 3-d layers (composed from the 2-d ones, Note [3-d ops from 2-d ones]): a C3D 3x3x3
// convolution (64 channels, 8 frames of 28x28, batch 4), a 3-D U-Net's 2x2x2 stride-2
// up-convolution (64 -> 32 channels, 8x14x14 -> 16x28x28) and a 2x2x2 max-pool.
struct Volume {
  const char* name;
  const char* kind;
  std::int64_t n, c, d, h, o, k, p;
};
constexpr Volume kVolumes[] = {
    {"conv3d_c3d_64_8x28x28", "conv3d", 4, 64, 8, 28, 64, 3, 1},
    {"tconv3d_unet_64to32_8x14x14", "tconv3d", 4, 64, 8, 14, 32, 2, 0},
    {"maxpool3d_2_64x8x28x28", "maxpool3d", 4, 64, 8, 28, 64, 2, 0},
};
constexpr const char* kBFloat16Layers[] = {"conv2", "resnet_64_32x32", "resnet_512_7x7"};

bool is_bfloat16_row(const Layer& l) {
  for (const char* name : kBFloat16Layers)
    if (std::string_view(name) == l.name) return true;
  return false;
}

void register_all() {
  const auto add = [](const std::string& name, std::function<void()> hetero_op,
                      std::function<void()> torch_op) {
    bench::add("conv/" + name + "/hetero", std::move(hetero_op));
    if (torch_op) bench::add_peer("conv/" + name + "/libtorch", std::move(torch_op));
  };
  const auto suffix = [](bool backward) { return backward ? "_fwd_bwd" : "_fwd"; };
  for (const Layer& l : kLayers)
    for (const bool backward : {false, true})
      add(std::string(l.name) + suffix(backward),
          conv_step(l.n, l.c, l.h, l.o, l.k, l.padding, l.stride, backward),
          HETERO_TORCH_PEER(conv2d_step(l.n, l.c, l.h, l.o, l.k, l.padding, l.stride, backward)));
  for (const Layer& l : kLayers)
    if (is_bfloat16_row(l))
      for (const bool backward : {false, true})
        add(std::string(l.name) + "_bf16" + suffix(backward),
            conv_step(l.n, l.c, l.h, l.o, l.k, l.padding, l.stride, backward, DType::bfloat16),
            HETERO_TORCH_PEER(
                conv2d_step(l.n, l.c, l.h, l.o, l.k, l.padding, l.stride, backward, true)));
  for (const Layer& l : kTransposed)
    for (const bool backward : {false, true})
      add(std::string(l.name) + suffix(backward),
          conv_step(l.n, l.c, l.h, l.o, l.k, l.padding, l.stride, backward, DType::float32, true),
          HETERO_TORCH_PEER(
              conv2d_step(l.n, l.c, l.h, l.o, l.k, l.padding, l.stride, backward, false, true)));
  for (const Pool& l : kPools)
    for (const bool backward : {false, true})
      add(std::string(l.name) + suffix(backward),
          pool_step(l.kind, l.n, l.c, l.h, l.k, l.s, l.p, backward),
          HETERO_TORCH_PEER(pool2d_step(l.kind, l.n, l.c, l.h, l.k, l.s, l.p, backward)));
  for (const Volume& l : kVolumes)
    for (const bool backward : {false, true})
      add(std::string(l.name) + suffix(backward),
          volume_step(l.kind, l.n, l.c, l.d, l.h, l.o, l.k, l.p, backward),
          HETERO_TORCH_PEER(volume_step(l.kind, l.n, l.c, l.d, l.h, l.o, l.k, l.p, backward)));
  for (const Norm& l : kNorms)
    for (const bool backward : {false, true})
      add(std::string(l.name) + suffix(backward), batch_norm_step(l.n, l.c, l.h, backward),
          HETERO_TORCH_PEER(batch_norm_step(l.n, l.c, l.h, backward)));
  add("lenet_step", lenet_step(256), HETERO_TORCH_PEER(lenet_step(256)));
  add("resnet18_step", resnet18_step(128), HETERO_TORCH_PEER(resnet18_step(128)));
}

}  // namespace

int main(int argc, char** argv) {
#if HETERO_BENCH_HAVE_TORCH
  bench::torch::set_threads(bench::threads());
#endif
  register_all();
  // The rows' operands, drawn by rand() on the cpu device's stream, made before any row is
  // timed: without this the first timed call of a process waited for every row's draws
  // (0.3-0.6 s, whichever row came first; bench/alone.py's warm-up hid it too).
  hetero::synchronize(hetero::Device::cpu());
  return bench::run(argc, argv);
}
