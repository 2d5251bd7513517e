// SPDX-License-Identifier: Apache-2.0
#pragma once
// D2L's LeNet-5 (chapter "Convolutional Neural Networks", section LeNet): two convolution +
// sigmoid + average-pooling stages and three fully connected layers, on [N, 1, 28, 28]
// input; weights initialised Xavier-uniform as the book does (nn.init.xavier_uniform_).
#include <cmath>

#include <hetero/hetero.hpp>

namespace lenet {

inline hetero::nn::Sequential make() {
  using namespace hetero::nn;
  Sequential net{Conv2d(1, 6, 5, {.padding = 2}),
                 Sigmoid(),
                 AvgPool2d(2, {.stride = 2}),
                 Conv2d(6, 16, 5),
                 Sigmoid(),
                 AvgPool2d(2, {.stride = 2}),
                 Flatten(),
                 Linear(16 * 5 * 5, 120),
                 Sigmoid(),
                 Linear(120, 84),
                 Sigmoid(),
                 Linear(84, 10)};
  // Xavier uniform: U(-b, b), b = sqrt(6 / (fan_in + fan_out)), fan = channels x kernel area.
  for (const auto& [name, p] : net.named_parameters()) {
    if (p.dim() < 2) continue;
    std::int64_t area = 1;
    for (std::int64_t d = 2; d < p.dim(); ++d) area *= p.size(d);
    const double b = std::sqrt(6.0 / static_cast<double>((p.size(0) + p.size(1)) * area));
    hetero::NoGradGuard no_grad;
    hetero::Tensor(p).copy_(hetero::rand(p.shape(), p.device()) * (2 * b) - b);
  }
  return net;
}

}  // namespace lenet
