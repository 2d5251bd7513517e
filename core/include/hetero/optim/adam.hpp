// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/adam.hpp
/// hetero::optim::Adam and AdamW, as torch.optim.Adam / AdamW (Kingma and Ba 2015; Loshchilov
/// and Hutter 2019), the update of torch 1.13's single-tensor path, per parameter p with
/// gradient g at step t (counted from 1):
///   Adam:  g = g + weight_decay * p                 (L2 penalty, when weight_decay != 0)
///   AdamW: p = p * (1 - lr * weight_decay)          (decoupled weight decay)
///   m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
///   v_max = max(v_max, v) with amsgrad, and v_max replaces v below
///   p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
/// State per parameter (state_dict names): "exp_avg" (m), "exp_avg_sq" (v), "max_exp_avg_sq"
/// (amsgrad only), "step" (a 0-d float32 tensor, as torch), on the parameter's device. The
/// step count is kept on the host, so step() waits for no device.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/optim/optimizer.hpp>

namespace hetero::optim {

/// Hyper-parameters of Adam (torch.optim.Adam's defaults). As keys of a parameter group
/// (Optimizer::get / set): "lr", "beta1", "beta2" (torch's betas), "eps", "weight_decay";
/// amsgrad is fixed at construction.
struct AdamOptions {
  double lr = 1e-3;         ///< >= 0 (torch 1.13 accepts 0)
  double beta1 = 0.9;       ///< decay of the gradient's running mean m, in [0, 1)
  double beta2 = 0.999;     ///< decay of the squared gradient's running mean v, in [0, 1)
  double eps = 1e-8;        ///< added to the denominator, >= 0
  double weight_decay = 0;  ///< L2 penalty added to the gradient, >= 0
  bool amsgrad = false;     ///< use the running maximum of v (Reddi et al. 2018)
};

/// The Adam optimiser (see the file comment for the update and its state). Not thread-safe:
/// step() from one thread, with no op on the parameters running alongside.
class HETERO_API Adam : public Optimizer {
 public:
  /// One group: keeps handles to `params`. ValueError for an invalid option (naming it, as
  /// torch's messages) or parameters (see Optimizer).
  Adam(std::vector<Tensor> params, AdamOptions options = {});
  /// Parameter groups, each with its options or `defaults`; errors as above.
  Adam(std::vector<ParamGroup<AdamOptions>> groups, AdamOptions defaults);
  /// One update of every parameter that has a gradient (parameters without one are skipped,
  /// as torch's); on the parameters' devices, without waiting for them.
  void step() override;
  /// Group `group`'s options (IndexError out of range).
  const AdamOptions& options(std::size_t group = 0) const;

 protected:
  /// For AdamW: `decoupled` weight decay; `who` names the optimiser in errors.
  Adam(std::vector<ParamGroup<AdamOptions>> groups, AdamOptions defaults, bool decoupled,
       const char* who);
  std::vector<std::pair<std::string, double>> options_of(std::size_t group) const override;
  bool set_option(std::size_t group, const std::string& key, double value, bool checked) override;
  /// "state.<i>.step", "exp_avg", "exp_avg_sq" and "max_exp_avg_sq" (amsgrad), as torch.
  nn::NamedTensors param_state() const override;
  void load_param_state(const nn::NamedTensors& state) override;

 private:
  struct State {
    Tensor exp_avg, exp_avg_sq, max_exp_avg_sq;
    std::int64_t step = 0;  // on the host: the update needs no device read for it
  };
  std::vector<State> state_;
  std::vector<AdamOptions> options_;
  bool decoupled_;
};

/// Adam with decoupled weight decay (torch.optim.AdamW): options as Adam's, but
/// weight_decay defaults to 1e-2 and multiplies the parameter by (1 - lr weight_decay)
/// before the update instead of adding to the gradient.
struct AdamWOptions {
  double lr = 1e-3;            ///< >= 0
  double beta1 = 0.9;          ///< as AdamOptions::beta1
  double beta2 = 0.999;        ///< as AdamOptions::beta2
  double eps = 1e-8;           ///< >= 0
  double weight_decay = 1e-2;  ///< decoupled decay rate, >= 0
  bool amsgrad = false;        ///< as AdamOptions::amsgrad
};

/// The AdamW optimiser (torch.optim.AdamW): Adam with the decoupled weight decay above.
class HETERO_API AdamW : public Adam {
 public:
  /// One group: keeps handles to `params`; ValueError for an invalid option, as Adam's.
  AdamW(std::vector<Tensor> params, AdamWOptions options = {});
  /// Parameter groups, each with its options or `defaults`.
  AdamW(std::vector<ParamGroup<AdamWOptions>> groups, AdamWOptions defaults);
};

}  // namespace hetero::optim
