// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/sgd.hpp
/// hetero::optim::SGD — stochastic gradient descent with momentum, dampening, Nesterov
/// momentum and weight decay, as torch.optim.SGD:
///   d = grad + weight_decay * p
///   buf = d (first step), else momentum * buf + (1 - dampening) * d
///   d = nesterov ? d + momentum * buf : buf          (when momentum != 0)
///   p = p - lr * d
/// Every update runs on the parameter's device, in place (handles see it), without
/// recording gradients. Move the module before building the optimiser (as torch says):
/// momentum buffers live where the parameters were at the first step.
#include <vector>

#include <hetero/export.hpp>
#include <hetero/optim/optimizer.hpp>
#include <hetero/tensor.hpp>

namespace hetero::optim {

/// Hyper-parameters of SGD (torch.optim.SGD's defaults except lr, which is required).
struct SGDOptions {
  double lr;            ///< learning rate, > 0
  double momentum = 0;  ///< >= 0
  double dampening = 0;
  double weight_decay = 0;  ///< L2 penalty, >= 0
  bool nesterov = false;    ///< needs momentum > 0 and dampening == 0
};

class HETERO_API SGD : public Optimizer {
 public:
  /// Keeps handles to `params` (e.g. module.parameters()). Error for an invalid option.
  SGD(std::vector<Tensor> params, SGDOptions options);
  /// One update of every parameter that has a gradient (others are skipped).
  void step() override;
  /// "state.<i>.momentum_buffer" for each parameter with a momentum buffer (as torch).
  nn::NamedTensors state_dict() const override;
  void load_state_dict(const nn::NamedTensors& state) override;
  const SGDOptions& options() const noexcept { return options_; }

 private:
  std::vector<Tensor> momentum_;
  SGDOptions options_;
};

}  // namespace hetero::optim
