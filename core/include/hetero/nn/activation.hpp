// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/activation.hpp
/// Parameter-free activation layers.
#include <cstdint>
#include <string>

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
  /// Along `dim` (checked at forward()).
  explicit Softmax(std::int64_t dim) : dim_(dim) {}
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t dim_;
};

/// gelu(x, approximate), as torch.nn.GELU: "none" (exact, the default) or "tanh"; any
/// shape, floating dtypes (NotImplementedError otherwise). ValueError at construction for
/// another `approximate`.
class HETERO_API GELU : public Module {
 public:
  /// "none" (the erf form) or "tanh"; ValueError otherwise (see the class comment).
  explicit GELU(std::string approximate = "none");
  Tensor forward(const Tensor& x) override;

 private:
  std::string approximate_;
};

/// silu(x) = x sigmoid(x), as torch.nn.SiLU. Any shape, floating dtypes.
class HETERO_API SiLU : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

/// leaky_relu(x, negative_slope), as torch.nn.LeakyReLU (default slope 0.01).
class HETERO_API LeakyReLU : public Module {
 public:
  /// The slope for x < 0.
  explicit LeakyReLU(double negative_slope = 0.01) : negative_slope_(negative_slope) {}
  Tensor forward(const Tensor& x) override;

 private:
  double negative_slope_;
};

/// elu(x, alpha), as torch.nn.ELU (default alpha 1).
class HETERO_API ELU : public Module {
 public:
  /// alpha (exp(x) - 1) for x <= 0.
  explicit ELU(double alpha = 1.0) : alpha_(alpha) {}
  Tensor forward(const Tensor& x) override;

 private:
  double alpha_;
};

/// softplus(x, beta, threshold), as torch.nn.Softplus (defaults 1 and 20).
class HETERO_API Softplus : public Module {
 public:
  /// log(1 + exp(beta x)) / beta, and x where beta x > threshold.
  explicit Softplus(double beta = 1.0, double threshold = 20.0)
      : beta_(beta), threshold_(threshold) {}
  Tensor forward(const Tensor& x) override;

 private:
  double beta_, threshold_;
};

}  // namespace hetero::nn
