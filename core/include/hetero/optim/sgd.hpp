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
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/optim/optimizer.hpp>
#include <hetero/tensor.hpp>

namespace hetero::optim {

/// Hyper-parameters of SGD (torch.optim.SGD's defaults except lr, which is required). As
/// keys of a parameter group (Optimizer::get / set): "lr", "momentum", "dampening",
/// "weight_decay"; nesterov is fixed at construction.
struct SGDOptions {
  double lr;                ///< learning rate, >= 0 (0 freezes the group, as torch 1.13 accepts)
  double momentum = 0;      ///< >= 0
  double dampening = 0;     ///< the gradient's weight in the momentum buffer is 1 - this
  double weight_decay = 0;  ///< L2 penalty, >= 0
  bool nesterov = false;    ///< needs momentum > 0 and dampening == 0
};

/// Stochastic gradient descent, as torch.optim.SGD (the update in the file comment). Not
/// thread-safe, as Adam.
class HETERO_API SGD : public Optimizer {
 public:
  /// One group: keeps handles to `params` (e.g. module.parameters()). ValueError for an
  /// invalid option (naming it, as torch's messages) or parameters (see Optimizer).
  SGD(std::vector<Tensor> params, SGDOptions options);
  /// Parameter groups, each with its options or `defaults` (as torch.optim.SGD(
  /// [{"params": ...}, ...], lr=...)); errors as above.
  SGD(std::vector<ParamGroup<SGDOptions>> groups, SGDOptions defaults);
  /// One update of every parameter that has a gradient (others are skipped).
  void step() override;
  /// Group `group`'s options (IndexError out of range).
  const SGDOptions& options(std::size_t group = 0) const;

 protected:
  std::vector<std::pair<std::string, double>> options_of(std::size_t group) const override;
  bool set_option(std::size_t group, const std::string& key, double value, bool checked) override;
  /// "state.<i>.momentum_buffer" for each parameter with a momentum buffer (as torch).
  nn::NamedTensors param_state() const override;
  void load_param_state(const nn::NamedTensors& state) override;

 private:
  std::vector<Tensor> momentum_;
  std::vector<SGDOptions> options_;
};

}  // namespace hetero::optim
