// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim/optimizer.hpp
/// hetero::optim::Optimizer — what every optimiser offers, as torch.optim.Optimizer: step(),
/// zero_grad(), parameter groups with their own hyper-parameters (read and set by name, as
/// torch's `param_groups[g]["lr"]`, which is what the schedulers of lr_scheduler.hpp change),
/// and the state as named tensors (state_dict / load_state_dict), so that a checkpoint of the
/// parameters plus this state resumes training bit for bit:
/// save(opt.state_dict(), path) and opt.load_state_dict(load_file(path)).
///
/// Thread-safety: an optimiser is one object; calls on it from several threads need the
/// caller's lock (as torch).
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/tensor.hpp>

namespace hetero::optim {

/// Parameters with their own hyper-parameters, as one entry of torch's
/// Optimizer.param_groups (libtorch's OptimizerParamGroup): `options` absent means the
/// optimiser's defaults (its constructor's `defaults`), present replaces all of them.
template <class Options>
struct ParamGroup {
  std::vector<Tensor> params;      ///< the group's parameters (handles)
  std::optional<Options> options;  ///< its own options, or none for the defaults
};

/// The base of the optimisers (see the file comment); one thread at a time.
class HETERO_API Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  /// One update of each parameter with a gradient (its group's options; unrecorded); a gradient
  /// not of the parameter's shape/dtype/device: Shape/DType/DeviceMismatchError before any update.
  virtual void step() = 0;
  /// Clears every parameter's gradient: undefined with `set_to_none` (torch >= 2.0's default),
  /// otherwise zeroed in place where defined (torch 1.13's default, set_to_none=False).
  void zero_grad(bool set_to_none = true);

  /// The state, as torch's state_dict():
  ///  - "state.<i>.<name>" for parameter i (counted over all groups in order, as torch),
  ///    e.g. "state.0.exp_avg", aliasing the optimiser's tensors (save() copies them);
  ///    parameters not yet stepped have no entries;
  ///  - "param_groups.<g>.<key>" for each hyper-parameter of group g (keys()), a 0-d
  ///    float64 cpu tensor, including what schedulers keep there ("initial_lr", ...);
  ///  - "param_groups.<g>.params": the group's parameter indices, int64 cpu.
  nn::NamedTensors state_dict() const;
  /// Replaces the state and hyper-parameters with `state` (as produced by state_dict(), any
  /// device: each tensor is copied to its parameter's device and dtype). Entries
  /// "param_groups.*" are optional (a checkpoint without them keeps the current
  /// hyper-parameters). ValueError naming the entry for an unknown name, an index out of
  /// range, a missing companion entry, or groups that do not match this optimiser's;
  /// ShapeError for a shape that is not the parameter's. The hyper-parameters are taken as
  /// they are, unchecked, as torch's (a schedule may have left an lr of -1e-18). On error
  /// nothing is changed (strong guarantee).
  void load_state_dict(const nn::NamedTensors& state);

  /// Every parameter, in group order (handles sharing the module's tensors).
  const std::vector<Tensor>& parameters() const noexcept { return params_; }
  /// How many parameter groups there are (at least 1).
  std::size_t num_param_groups() const noexcept { return groups_.size(); }
  /// The parameters of group `group`; IndexError when out of range.
  std::vector<Tensor> param_group(std::size_t group) const;
  /// Group `group`'s learning rate, as param_groups[group]["lr"]; IndexError when out of range.
  double lr(std::size_t group = 0) const;
  /// Sets the learning rate of every group; ValueError for lr < 0 or NaN (nothing changed).
  void set_lr(double lr);
  /// Sets group `group`'s learning rate; IndexError / ValueError as set().
  void set_lr(std::size_t group, double lr);
  /// Group `group`'s value for `key`, as param_groups[group].get(key): an option of the
  /// optimiser ("lr", "momentum", "beta1", ...) or a value set by set(); nullopt when the
  /// group has no such key. IndexError for a group out of range.
  std::optional<double> get(std::size_t group, const std::string& key) const;
  /// Sets `key` of group `group`, as param_groups[group][key] = value: an option of the
  /// optimiser is checked as the constructor checks it (ValueError, nothing changed); any
  /// other key is kept beside the options (schedulers keep "initial_lr" there) and saved in
  /// state_dict(). IndexError for a group out of range.
  void set(std::size_t group, const std::string& key, double value);
  /// The keys of group `group` (its options, then the other keys in name order).
  std::vector<std::string> keys(std::size_t group) const;

 protected:
  /// Keeps handles to the parameters of each group (every group non-empty, every parameter
  /// defined, a leaf, and in one group only: ValueError naming `who` otherwise, as torch's
  /// add_param_group). Parameters that do not require grad are accepted (they never have a
  /// gradient, so step() skips them).
  Optimizer(std::vector<std::vector<Tensor>> groups, const char* who);
  /// The group of parameter `index` (an index into parameters()).
  std::size_t group_of(std::size_t index) const { return group_of_[index]; }

  /// The numeric options of group `group`, by torch's key (Adam's betas as "beta1"/"beta2").
  virtual std::vector<std::pair<std::string, double>> options_of(std::size_t group) const = 0;
  /// Sets option `key` of `group`, after checking it when `checked` (ValueError, nothing
  /// changed); false when `key` is not one of this optimiser's options. Schedulers set the lr
  /// unchecked, as torch's write param_groups directly (a cosine schedule may round to -1e-18).
  virtual bool set_option(std::size_t group, const std::string& key, double value,
                          bool checked) = 0;
  /// The per-parameter state ("state.<i>.<name>" entries only).
  virtual nn::NamedTensors param_state() const = 0;
  /// Replaces the per-parameter state with `state` ("state.<i>.<name>" entries only); strong
  /// guarantee, errors as load_state_dict().
  virtual void load_param_state(const nn::NamedTensors& state) = 0;

  /// Every parameter, the groups' in order (see parameters()).
  std::vector<Tensor> params_;

 private:
  friend class LRScheduler;
  friend class ReduceLROnPlateau;
  void check_group(std::size_t group) const;
  // set(), checking options only when `checked`.
  void assign(std::size_t group, const std::string& key, double value, bool checked);
  struct Group {
    std::size_t begin = 0, end = 0;       // [begin, end) in params_
    std::map<std::string, double> extra;  // keys that are not options (torch keeps them too)
  };
  std::vector<Group> groups_;
  std::vector<std::size_t> group_of_;
  const char* who_;
};

}  // namespace hetero::optim
