// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/activation.hpp
/// Activation layers, as torch.nn's: each calls the function of <hetero/activations.hpp>
/// (or ops.hpp) of its name, with its shapes, dtypes and errors. PReLU alone has a
/// parameter.
#include <cstdint>
#include <string>

#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

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

/// log_softmax(x, dim), as torch.nn.LogSoftmax(dim): along `dim` (negative counts from the
/// end); throws as log_softmax().
class HETERO_API LogSoftmax : public Module {
 public:
  /// Along `dim` (checked at forward()).
  explicit LogSoftmax(std::int64_t dim) : dim_(dim) {}
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t dim_;
};

/// selu(x), as torch.nn.SELU (fixed alpha and scale: kSeluAlpha, kSeluScale).
class HETERO_API SELU : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

/// celu(x, alpha), as torch.nn.CELU (default alpha 1).
class HETERO_API CELU : public Module {
 public:
  /// alpha (exp(x / alpha) - 1) for x <= 0; ValueError for alpha == 0 (as torch's forward).
  explicit CELU(double alpha = 1.0);
  Tensor forward(const Tensor& x) override;

 private:
  double alpha_;
};

/// mish(x) = x tanh(softplus(x)), as torch.nn.Mish.
class HETERO_API Mish : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

/// logsigmoid(x), as torch.nn.LogSigmoid.
class HETERO_API LogSigmoid : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

/// softsign(x) = x / (1 + |x|), as torch.nn.Softsign.
class HETERO_API Softsign : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

/// hardtanh(x, min_val, max_val), as torch.nn.Hardtanh (defaults -1 and 1).
class HETERO_API Hardtanh : public Module {
 public:
  /// The bounds; ValueError when max_val <= min_val (torch.nn.Hardtanh's assertion; the
  /// function itself takes them).
  explicit Hardtanh(double min_val = -1.0, double max_val = 1.0);
  Tensor forward(const Tensor& x) override;

 private:
  double min_val_, max_val_;
};

/// relu6(x) = min(max(x, 0), 6), as torch.nn.ReLU6.
class HETERO_API ReLU6 : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

/// hardsigmoid(x), as torch.nn.Hardsigmoid.
class HETERO_API Hardsigmoid : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

/// hardswish(x), as torch.nn.Hardswish.
class HETERO_API Hardswish : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

/// prelu(x, weight) with a learnt weight, as torch.nn.PReLU: parameter "weight" of shape
/// [num_parameters], every element `init`. num_parameters 1 shares one slope; otherwise it
/// must equal x.size(1) at forward() (the channels; ValueError otherwise, as prelu()).
class HETERO_API PReLU : public Module {
 public:
  /// num_parameters slopes of value `init` in options' dtype (default float32) on options'
  /// device. ValueError for num_parameters < 1 (torch builds an empty weight that every
  /// forward refuses).
  explicit PReLU(std::int64_t num_parameters = 1, double init = 0.25, TensorOptions options = {});
  /// x where x > 0, else weight x (per channel); errors as prelu().
  Tensor forward(const Tensor& x) override;
};

}  // namespace hetero::nn
