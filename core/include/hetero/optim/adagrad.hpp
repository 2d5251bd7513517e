// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/adagrad.hpp
/// hetero::optim::Adagrad, as torch.optim.Adagrad (Duchi, Hazan and Singer 2011; D2L 12.7),
/// the update of torch 1.13's single-tensor path, per parameter p with gradient g at step t
/// (counted from 1):
///   g = g + weight_decay * p                        (when weight_decay != 0)
///   clr = lr / (1 + (t - 1) * lr_decay)
///   sum = sum + g * g
///   p = p - clr * g / (sqrt(sum) + eps)
/// State per parameter (state_dict names): "sum" and "step" (a 0-d float32 tensor, as torch),
/// on the parameter's device; every parameter has state from the start, as torch's: its sum
/// is filled at construction with the constructor's initial_accumulator_value (torch 1.13
/// reads that argument, not a group's own value, which stays a key of the group only).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/optim/optimizer.hpp>

namespace hetero::optim {

/// Hyper-parameters of Adagrad (torch.optim.Adagrad's defaults), all >= 0. As keys of a
/// parameter group (Optimizer::get / set): "lr", "lr_decay", "weight_decay",
/// "initial_accumulator_value" (read at construction only), "eps".
struct AdagradOptions {
  double lr = 1e-2;                      ///< learning rate
  double lr_decay = 0;                   ///< lr / (1 + (t - 1) lr_decay) at step t
  double weight_decay = 0;               ///< L2 penalty added to the gradient
  double initial_accumulator_value = 0;  ///< every "sum" element's start (defaults' only)
  double eps = 1e-10;                    ///< added to the denominator
};

/// The Adagrad optimiser (the update and state in the file comment). Not thread-safe, as
/// Adam.
class HETERO_API Adagrad : public Optimizer {
 public:
  /// One group: keeps handles to `params` and fills each "sum". ValueError for a negative or
  /// NaN option (torch's messages: "Invalid lr_decay value: -1") or parameters (see
  /// Optimizer).
  Adagrad(std::vector<Tensor> params, AdagradOptions options = {});
  /// Parameter groups, each with its options or `defaults`; errors as above.
  Adagrad(std::vector<ParamGroup<AdagradOptions>> groups, AdagradOptions defaults);
  /// One update of every parameter that has a gradient (others are skipped, as torch's).
  void step() override;
  /// Group `group`'s options (IndexError out of range).
  const AdagradOptions& options(std::size_t group = 0) const;

 protected:
  std::vector<std::pair<std::string, double>> options_of(std::size_t group) const override;
  bool set_option(std::size_t group, const std::string& key, double value, bool checked) override;
  /// "state.<i>.step" and "state.<i>.sum" for every parameter, as torch.
  nn::NamedTensors param_state() const override;
  /// A parameter without entries starts afresh (step 0, sum filled again).
  void load_param_state(const nn::NamedTensors& state) override;

 private:
  std::vector<std::int64_t> steps_;
  std::vector<std::map<std::string, Tensor>> slots_;
  std::vector<AdagradOptions> options_;
  double initial_sum_;  // the constructor's initial_accumulator_value
};

}  // namespace hetero::optim
