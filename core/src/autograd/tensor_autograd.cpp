// SPDX-License-Identifier: Apache-2.0
// The autograd methods of Tensor: requires_grad, grad, detach (engine.cpp: backward).
#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/tensor.hpp>

#include "../op_helpers.hpp"
#include "../storage.hpp"
#include "node.hpp"
#include "view_base.hpp"

namespace hetero {

std::uint64_t tensor_version(const Tensor& t) {
  return detail::impl_of(t, "tensor_version").storage->version.load();
}

void increment_version(const Tensor& t) {
  ++detail::impl_of(t, "increment_version").storage->version;
}

bool Tensor::requires_grad() const {
  const auto& meta = detail::autograd_meta(*this);
  return meta && meta->requires_grad;
}

Tensor& Tensor::requires_grad_(bool on) {
  detail::impl_of(*this, "requires_grad_");
  const auto& meta = detail::autograd_meta(*this);
  if (on && !is_floating_point(dtype()))
    throw DTypeError("requires_grad_: only tensors of floating dtype can require gradients, got " +
                     std::string(dtype_name(dtype())));
  if (meta && meta->grad_fn && !on)
    throw Error("requires_grad_(false): " + meta->grad_fn->name +
                " output is not a leaf; use detach() to get a tensor without history");
  if (!meta) {
    if (!on) return *this;
    impl_->autograd = std::make_shared<detail::AutogradMeta>();
  }
  impl_->autograd->requires_grad = on;
  return *this;
}

Tensor Tensor::grad() const {
  const auto& meta = detail::autograd_meta(*this);
  return meta ? meta->grad : Tensor();
}

Tensor& Tensor::mutable_grad() {
  checked();
  if (!impl_->autograd) impl_->autograd = std::make_shared<detail::AutogradMeta>();
  return impl_->autograd->grad;
}

bool Tensor::is_leaf() const {
  const auto& meta = detail::autograd_meta(*this);
  return !meta || !meta->grad_fn;
}

std::string Tensor::grad_fn_name() const {
  const auto& meta = detail::autograd_meta(*this);
  return meta && meta->grad_fn ? meta->grad_fn->name : std::string();
}

HookHandle Tensor::register_hook(GradHook hook) {
  const auto& meta = detail::autograd_meta(*this);
  if (!meta || !meta->requires_grad)
    throw Error(
        "register_hook: cannot register a hook on a tensor that does not require grad "
        "(call requires_grad_() on it or on a leaf it depends on)");
  if (!hook) throw Error("register_hook: the hook is empty");
  auto active = std::make_shared<bool>(true);
  detail::Hook<GradHook> h{active, std::move(hook)};
  if (meta->grad_fn)
    meta->grad_fn->pre_hooks.push_back(std::move(h));
  else
    meta->hooks.push_back(std::move(h));
  return HookHandle(std::move(active));
}

HookHandle Tensor::register_post_accumulate_grad_hook(PostAccumulateGradHook hook) {
  const auto& meta = detail::autograd_meta(*this);
  if (!meta || !meta->requires_grad || meta->grad_fn)
    throw Error(
        "register_post_accumulate_grad_hook: only a leaf that requires grad accumulates a "
        "gradient; this tensor " +
        std::string(meta && meta->grad_fn ? "is the result of " + meta->grad_fn->name
                                          : "does not require grad"));
  if (!hook) throw Error("register_post_accumulate_grad_hook: the hook is empty");
  auto active = std::make_shared<bool>(true);
  // Bound to the leaf weakly: the leaf's meta holds the hook, which must not hold the leaf.
  std::weak_ptr<detail::TensorImpl> leaf = impl_;
  meta->post_accumulate_hooks.push_back({active, [leaf, hook = std::move(hook)] {
                                           if (auto impl = leaf.lock()) {
                                             Tensor t(std::move(impl));
                                             hook(t);
                                           }
                                         }});
  return HookHandle(std::move(active));
}

Tensor Tensor::detach() const {
  auto impl = std::make_shared<detail::TensorImpl>(checked());
  impl->autograd = nullptr;
  impl->base = nullptr;  // a tensor of its own, as torch's (Note [View bases])
  impl->view_without_grad = false;
  return Tensor(std::move(impl));
}

}  // namespace hetero
