// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/module.hpp
/// hetero::nn::Module — base of layers: named parameters and buffers, children, in-place
/// moves between devices (as torch.nn.Module).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <hetero/device.hpp>
#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero::nn {

/// An ordered list of (name, tensor) in registration order, as a state_dict.
class HETERO_API NamedTensors {
 public:
  /// One entry: its name and the tensor (a handle sharing the module's).
  using value_type = std::pair<std::string, Tensor>;
  /// The tensor named `name`; IndexError naming it and listing the names if absent.
  const Tensor& at(const std::string& name) const;
  /// Whether an entry is named `name`.
  bool contains(const std::string& name) const;
  /// Number of entries.
  std::size_t size() const noexcept { return items_.size(); }
  /// The entries in order, as value_type (begin() to end()).
  /// @{
  auto begin() const noexcept { return items_.begin(); }
  auto end() const noexcept { return items_.end(); }
  /// @}
  /// Appends an entry (names are not checked for repeats).
  void push_back(std::string name, Tensor t) { items_.emplace_back(std::move(name), std::move(t)); }

 private:
  std::vector<value_type> items_;
};

/// Base class of layers. Parameters and buffers are registered by name; children by
/// name ("0", "1" in Sequential), so named_parameters() gives PyTorch's names
/// ("0.weight"). Not copyable (a copy would alias parameters); movable. Not thread-safe.
class HETERO_API Module {
 public:
  virtual ~Module() = default;
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  /// Moves the parameters, buffers and children (handles to them stay valid).
  /// @{
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;
  /// @}

  /// The layer's computation; runs on x's device (parameters elsewhere:
  /// DeviceMismatchError, never a silent copy).
  virtual Tensor forward(const Tensor& x) = 0;
  /// forward(x).
  Tensor operator()(const Tensor& x) { return forward(x); }

  /// Parameters of this module and children, recursively, named "child.name", each once (torch).
  NamedTensors named_parameters() const;
  /// Buffers (non-trained state such as a loss weight), named as parameters, once each.
  NamedTensors named_buffers() const;
  /// The parameters in named_parameters() order (handles sharing the module's tensors).
  std::vector<Tensor> parameters() const;
  /// Moves every parameter and buffer to `d` in place (handles held elsewhere see the
  /// move), and the parameters' gradients with them, and returns this module, as
  /// torch.nn.Module.to. Not recorded by autograd.
  Module& to(const Device& d);
  /// Clears the gradients of all parameters (grad() becomes undefined), as
  /// torch.nn.Module.zero_grad(set_to_none=True).
  void zero_grad();
  /// The parameter `name` of this module itself (not children); IndexError if absent.
  Tensor& parameter(const std::string& name);
  /// The buffer `name` of this module itself (BatchNorm's "running_mean"); IndexError if
  /// absent.
  Tensor& buffer(const std::string& name);
  /// parameter("weight") / parameter("bias"), as torch's `net[0].weight`.
  /// @{
  Tensor& weight() { return parameter("weight"); }
  Tensor& bias() { return parameter("bias"); }
  /// @}
  /// Training mode (affects Dropout and BatchNorm), recursively; eval() is train(false).
  /// @{
  void train(bool on = true);
  void eval() { train(false); }
  /// @}
  /// Whether this module is in training mode (true after construction).
  bool is_training() const noexcept { return training_; }
  /// Direct children in registration order.
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& children() const noexcept {
    return children_;
  }

 protected:
  /// Registers (or replaces) a parameter; returns the stored handle. A floating
  /// parameter is marked requires_grad_() (as torch.nn.Parameter).
  Tensor& register_parameter(const std::string& name, Tensor t);
  /// Registers (or replaces) a buffer; returns the stored handle.
  Tensor& register_buffer(const std::string& name, Tensor t);
  /// Registers a child module under `name`.
  void register_module(const std::string& name, std::shared_ptr<Module> m);

 private:
  void collect(const std::string& prefix, bool buffers, NamedTensors& out) const;
  std::vector<std::pair<std::string, Tensor>> parameters_;
  std::vector<std::pair<std::string, Tensor>> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
};

}  // namespace hetero::nn
