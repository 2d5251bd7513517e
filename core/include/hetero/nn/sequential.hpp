// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/sequential.hpp
/// hetero::nn::Sequential — children applied in order, named "0", "1", ... as
/// torch.nn.Sequential.
#include <concepts>
#include <cstddef>
#include <memory>
#include <type_traits>

#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// Modules run in order, as torch.nn.Sequential (see the file comment).
class HETERO_API Sequential : public Module {
 public:
  Sequential() = default;
  /// Sequential{Linear(3, 4), ReLU(), Linear(4, 1)}: takes ownership of the layers.
  template <class... M>
  requires(sizeof...(M) > 0 && (std::derived_from<std::decay_t<M>, Module> && ...))
      Sequential(M&&... modules) {  // NOLINT: brace initialisation as in PyTorch
    (push_back(std::make_shared<std::decay_t<M>>(std::forward<M>(modules))), ...);
  }
  /// Appends a layer named by its position.
  void push_back(std::shared_ptr<Module> m);
  /// Applies the layers in order.
  Tensor forward(const Tensor& x) override;
  /// The i-th layer; IndexError when out of range.
  Module& operator[](std::size_t i) const;
  /// Number of modules.
  std::size_t size() const noexcept { return children().size(); }
  /// Module::to(d), returning this container.
  Sequential& to(const Device& d) {
    Module::to(d);
    return *this;
  }
};

}  // namespace hetero::nn
