// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/optimizer.hpp
/// hetero::optim::Optimizer — what every optimiser offers, as torch.optim.Optimizer: step(),
/// zero_grad(), and its per-parameter state as named tensors (state_dict /
/// load_state_dict), so that a checkpoint of the parameters plus this state resumes training
/// bit for bit: save(opt.state_dict(), path) and opt.load_state_dict(load_file(path)).
#include <vector>

#include <hetero/export.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/tensor.hpp>

namespace hetero::optim {

class HETERO_API Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  /// One update of every parameter that has a gradient (others are skipped). Runs on each
  /// parameter's device without recording gradients.
  virtual void step() = 0;
  /// Clears every parameter's gradient (undefined), as zero_grad(set_to_none=True).
  void zero_grad();
  /// The state, as torch's state_dict()["state"]: "state.<i>.<name>" for parameter i (in
  /// the order given to the constructor), e.g. "state.0.exp_avg"; tensors alias the
  /// optimiser's (save() copies them). Parameters not yet stepped have no entries.
  /// Hyper-parameters are not included (the constructor's options set them).
  virtual nn::NamedTensors state_dict() const = 0;
  /// Replaces the state with `state` (as produced by state_dict(), any device: each tensor is
  /// copied to its parameter's device and dtype). ValueError naming the entry for an unknown
  /// name, a parameter index out of range or a missing companion entry; ShapeError for a
  /// shape that is not the parameter's. On error the state is unchanged.
  virtual void load_state_dict(const nn::NamedTensors& state) = 0;
  /// The parameters, as given to the constructor (handles sharing the module's tensors).
  const std::vector<Tensor>& parameters() const noexcept { return params_; }

 protected:
  /// Keeps handles to `params`; Error naming `who` unless each is defined and requires grad.
  Optimizer(std::vector<Tensor> params, const char* who);
  std::vector<Tensor> params_;
};

}  // namespace hetero::optim
