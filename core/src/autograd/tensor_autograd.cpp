// SPDX-License-Identifier: Apache-2.0
// The autograd methods of Tensor: requires_grad, grad, detach (engine.cpp: backward).
#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/tensor.hpp>

#include "../op_helpers.hpp"
#include "../storage.hpp"

namespace hetero {

std::uint64_t tensor_version(const Tensor& t) {
  return detail::impl_of(t, "tensor_version").storage->version.load();
}

void increment_version(const Tensor& t) {
  ++detail::impl_of(t, "increment_version").storage->version;
}

bool Tensor::requires_grad() const {
  const auto& meta = checked().autograd;
  return meta && meta->requires_grad;
}

Tensor& Tensor::requires_grad_(bool on) {
  auto& meta = detail::impl_of(*this, "requires_grad_").autograd;
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
  const auto& meta = checked().autograd;
  return meta ? meta->grad : Tensor();
}

Tensor& Tensor::mutable_grad() {
  checked();
  if (!impl_->autograd) impl_->autograd = std::make_shared<detail::AutogradMeta>();
  return impl_->autograd->grad;
}

bool Tensor::is_leaf() const {
  const auto& meta = checked().autograd;
  return !meta || !meta->grad_fn;
}

std::string Tensor::grad_fn_name() const {
  const auto& meta = checked().autograd;
  return meta && meta->grad_fn ? meta->grad_fn->name : std::string();
}

Tensor Tensor::detach() const {
  auto impl = std::make_shared<detail::TensorImpl>(checked());
  impl->autograd = nullptr;
  return Tensor(std::move(impl));
}

}  // namespace hetero
