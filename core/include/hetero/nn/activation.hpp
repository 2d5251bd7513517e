// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/activation.hpp
/// Parameter-free activation layers.
#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// max(x, 0) elementwise, as torch.nn.ReLU. Any shape.
class HETERO_API ReLU : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

/// 1 / (1 + exp(-x)) elementwise, as torch.nn.Sigmoid. Any shape; integer input gives float32.
class HETERO_API Sigmoid : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

}  // namespace hetero::nn
