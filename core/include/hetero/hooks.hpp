// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file hooks.hpp
/// Autograd hooks, as torch.Tensor.register_hook and register_post_accumulate_grad_hook:
/// functions backward() calls when it reaches a tensor (Tensor::register_hook,
/// Tensor::register_post_accumulate_grad_hook). They run on the thread that runs
/// backward(), with grad mode off, in the order registered; an exception a hook throws
/// leaves backward() (the gradients reached so far stay accumulated). Registering a hook
/// while another thread runs backward() through the tensor is not supported.
#include <functional>
#include <memory>

#include <hetero/export.hpp>

namespace hetero {

class Tensor;

/// Sees the gradient with respect to a tensor before it flows on (or, for a leaf, before
/// it is accumulated into grad()); returns a replacement of the same shape, device and
/// dtype, or an undefined Tensor to keep it.
using GradHook = std::function<Tensor(const Tensor& grad)>;
/// Called with a leaf once backward() has accumulated its gradient for this backward pass
/// into leaf.grad() (once per pass, however many times the leaf was used).
using PostAccumulateGradHook = std::function<void(Tensor& leaf)>;

/// The handle of a registered hook, as torch.utils.hooks.RemovableHandle. Copies share it;
/// dropping it keeps the hook.
class HETERO_API HookHandle {
 public:
  /// A handle of no hook (remove() does nothing).
  HookHandle() = default;
  /// For the core (hooks.cpp).
  explicit HookHandle(std::shared_ptr<bool> active) noexcept : active_(std::move(active)) {}
  /// The hook is not called again. Idempotent; never throws.
  void remove() noexcept {
    if (active_) *active_ = false;
  }

 private:
  std::shared_ptr<bool> active_;
};

}  // namespace hetero
