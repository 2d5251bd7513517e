// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/adadelta.hpp
/// hetero::optim::Adadelta, as torch.optim.Adadelta (Zeiler 2012; D2L 12.9), the update of
/// torch 1.13's single-tensor path, per parameter p with gradient g:
///   g = g + weight_decay * p                           (when weight_decay != 0)
///   v = rho * v + (1 - rho) * g * g
///   delta = sqrt(u + eps) / sqrt(v + eps) * g
///   u = rho * u + (1 - rho) * delta * delta
///   p = p - lr * delta
/// State per parameter (state_dict names): "square_avg" (v), "acc_delta" (u), "step" (a 0-d
/// int64 tensor: torch keeps a Python int), on the parameter's device, created at the
/// parameter's first step.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/optim/optimizer.hpp>

namespace hetero::optim {

/// Hyper-parameters of Adadelta (torch.optim.Adadelta's defaults). As keys of a parameter
/// group (Optimizer::get / set): "lr", "rho", "eps", "weight_decay".
struct AdadeltaOptions {
  double lr = 1.0;          ///< scale of the step, >= 0
  double rho = 0.9;         ///< decay of both running means, in [0, 1]
  double eps = 1e-6;        ///< inside both square roots, >= 0
  double weight_decay = 0;  ///< L2 penalty added to the gradient, >= 0
};

/// The Adadelta optimiser (the update and state in the file comment). Not thread-safe, as
/// Adam.
class HETERO_API Adadelta : public Optimizer {
 public:
  /// One group: keeps handles to `params`. ValueError for an option out of range (torch's
  /// messages: "Invalid rho value: 1.5") or parameters (see Optimizer).
  Adadelta(std::vector<Tensor> params, AdadeltaOptions options = {});
  /// Parameter groups, each with its options or `defaults`; errors as above.
  Adadelta(std::vector<ParamGroup<AdadeltaOptions>> groups, AdadeltaOptions defaults);
  /// One update of every parameter that has a gradient (others are skipped, as torch's).
  void step() override;
  /// Group `group`'s options (IndexError out of range).
  const AdadeltaOptions& options(std::size_t group = 0) const;

 protected:
  std::vector<std::pair<std::string, double>> options_of(std::size_t group) const override;
  bool set_option(std::size_t group, const std::string& key, double value, bool checked) override;
  /// "state.<i>.step", "square_avg" and "acc_delta" for each parameter stepped, as torch.
  nn::NamedTensors param_state() const override;
  void load_param_state(const nn::NamedTensors& state) override;

 private:
  std::vector<std::int64_t> steps_;
  std::vector<std::map<std::string, Tensor>> slots_;
  std::vector<AdadeltaOptions> options_;
};

}  // namespace hetero::optim
