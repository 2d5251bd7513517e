// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/activation.hpp
/// Parameter-free activation layers.
#include <cstdint>

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

/// tanh(x) elementwise, as torch.nn.Tanh. Any shape; integer input gives float32.
class HETERO_API Tanh : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

/// softmax(x, dim), as torch.nn.Softmax(dim): along `dim` (negative counts from the end);
/// throws as softmax().
class HETERO_API Softmax : public Module {
 public:
  explicit Softmax(std::int64_t dim) : dim_(dim) {}
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t dim_;
};

}  // namespace hetero::nn
