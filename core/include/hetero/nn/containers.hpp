// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/containers.hpp
/// hetero::nn::ModuleList and ModuleDict — modules held as children (so their parameters
/// and buffers are the container's, named "<index>.<name>" / "<key>.<name>", and move with
/// to()), with no forward of their own, as torch.nn.ModuleList / ModuleDict.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// Modules in a list, children "0", "1", ... (see the file comment).
class HETERO_API ModuleList : public Module {
 public:
  /// An empty list.
  ModuleList() = default;
  /// Appends `m` as child "<size()>". Error for a null module.
  void push_back(std::shared_ptr<Module> m);
  /// The i-th module; IndexError when out of range.
  Module& operator[](std::size_t i) const;
  /// The i-th module as its own type (std::dynamic_pointer_cast; null when it is not a T).
  template <class T>
  std::shared_ptr<T> at(std::size_t i) const {
    (*this)[i];  // IndexError out of range
    return std::dynamic_pointer_cast<T>(children()[i].second);
  }
  /// Number of modules.
  std::size_t size() const noexcept { return children().size(); }
  /// NotImplementedError: a container is iterated by its owner (as torch's).
  Tensor forward(const Tensor& x) override;
};

/// Modules by name, children named by their keys (see the file comment).
class HETERO_API ModuleDict : public Module {
 public:
  /// An empty dictionary.
  ModuleDict() = default;
  /// Adds `m` under `key` (insertion order is kept). ValueError for a key already present,
  /// an empty key or one with '.'; Error for a null module.
  void insert(const std::string& key, std::shared_ptr<Module> m);
  /// The module under `key`; IndexError naming it when absent.
  Module& operator[](const std::string& key) const;
  /// Whether a module is under `key`.
  bool contains(const std::string& key) const;
  /// The keys in insertion order.
  std::vector<std::string> keys() const;
  /// Number of modules.
  std::size_t size() const noexcept { return children().size(); }
  /// NotImplementedError, as ModuleList's.
  Tensor forward(const Tensor& x) override;
};

}  // namespace hetero::nn
