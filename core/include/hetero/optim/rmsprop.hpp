// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/rmsprop.hpp
/// hetero::optim::RMSprop, as torch.optim.RMSprop (Tieleman and Hinton 2012; the centered
/// form of Graves 2013; D2L 12.8), the update of torch 1.13's single-tensor path, per
/// parameter p with gradient g:
///   g = g + weight_decay * p                           (when weight_decay != 0)
///   v = alpha * v + (1 - alpha) * g * g
///   centered: m = alpha * m + (1 - alpha) * g;  avg = sqrt(v - m * m) + eps
///   otherwise: avg = sqrt(v) + eps
///   momentum > 0: buf = momentum * buf + g / avg;  p = p - lr * buf
///   otherwise:    p = p - lr * g / avg
/// State per parameter (state_dict names): "square_avg" (v), "grad_avg" (m, centered only),
/// "momentum_buffer" (momentum > 0 only), "step" (a 0-d int64 tensor: torch keeps a Python
/// int), on the parameter's device, created at the parameter's first step.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/optim/optimizer.hpp>

namespace hetero::optim {

/// Hyper-parameters of RMSprop (torch.optim.RMSprop's defaults), the numbers >= 0. As keys
/// of a parameter group (Optimizer::get / set): "lr", "alpha", "eps", "weight_decay",
/// "momentum" (which OneCycleLR cycles); centered is fixed at construction.
struct RMSpropOptions {
  double lr = 1e-2;         ///< learning rate
  double alpha = 0.99;      ///< decay of the squared gradient's running mean v
  double eps = 1e-8;        ///< added to the denominator
  double weight_decay = 0;  ///< L2 penalty added to the gradient
  double momentum = 0;      ///< momentum of the scaled step (0: none)
  bool centered = false;    ///< divide by the running variance instead of the second moment
};

/// The RMSprop optimiser (the update and state in the file comment). Not thread-safe, as
/// Adam.
class HETERO_API RMSprop : public Optimizer {
 public:
  /// One group: keeps handles to `params`. ValueError for a negative or NaN option (torch's
  /// messages: "Invalid alpha value: -1") or parameters (see Optimizer).
  RMSprop(std::vector<Tensor> params, RMSpropOptions options = {});
  /// Parameter groups, each with its options or `defaults`; errors as above.
  RMSprop(std::vector<ParamGroup<RMSpropOptions>> groups, RMSpropOptions defaults);
  /// One update of every parameter that has a gradient (others are skipped, as torch's).
  void step() override;
  /// Group `group`'s options (IndexError out of range).
  const RMSpropOptions& options(std::size_t group = 0) const;

 protected:
  std::vector<std::pair<std::string, double>> options_of(std::size_t group) const override;
  bool set_option(std::size_t group, const std::string& key, double value, bool checked) override;
  /// "state.<i>.step", "square_avg", and "grad_avg" / "momentum_buffer" where kept.
  nn::NamedTensors param_state() const override;
  void load_param_state(const nn::NamedTensors& state) override;

 private:
  std::vector<std::int64_t> steps_;
  std::vector<std::map<std::string, Tensor>> slots_;
  std::vector<RMSpropOptions> options_;
};

}  // namespace hetero::optim
