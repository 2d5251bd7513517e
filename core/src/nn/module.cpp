// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/module.hpp>

#include <unordered_set>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>

namespace hetero::nn {

const Tensor& NamedTensors::at(const std::string& name) const {
  for (const auto& [n, t] : items_)
    if (n == name) return t;
  std::string names;
  for (const auto& [n, t] : items_) names += (names.empty() ? "" : ", ") + n;
  throw IndexError("no tensor named '" + name + "' (have: " + names + ")");
}

bool NamedTensors::contains(const std::string& name) const {
  for (const auto& item : items_)
    if (item.first == name) return true;
  return false;
}

void Module::collect(const std::string& prefix, bool buffers, NamedTensors& out) const {
  for (const auto& [n, t] : buffers ? buffers_ : parameters_) out.push_back(prefix + n, t);
  for (const auto& [n, child] : children_) child->collect(prefix + n + ".", buffers, out);
}

namespace {
// As torch's named_parameters() and named_buffers() (remove_duplicate=True): a tensor
// registered under several names (a module shared by two parents, tied weights) is listed
// once, under its first name. Listed twice, an optimiser stepped it twice per step and
// clip_grad_norm_ counted it twice.
NamedTensors without_duplicates(const NamedTensors& all) {
  NamedTensors out;
  std::unordered_set<const void*> seen;
  for (const auto& [n, t] : all)
    if (!t.defined() || seen.insert(t.impl().get()).second) out.push_back(n, t);
  return out;
}
}  // namespace

NamedTensors Module::named_parameters() const {
  NamedTensors all;
  collect("", false, all);
  return without_duplicates(all);
}

NamedTensors Module::named_buffers() const {
  NamedTensors all;
  collect("", true, all);
  return without_duplicates(all);
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (const auto& item : named_parameters()) out.push_back(item.second);
  return out;
}

Module& Module::to(const Device& d) {
  NoGradGuard no_grad;
  for (auto& [n, t] : parameters_) {
    t.set_data(t.to(d));
    if (t.grad().defined()) t.mutable_grad() = t.grad().to(d);
  }
  for (auto& [n, t] : buffers_) t.set_data(t.to(d));
  for (auto& [n, child] : children_) child->to(d);
  return *this;
}

void Module::zero_grad() {
  for (auto& [n, t] : parameters_) t.mutable_grad() = Tensor();
  for (auto& [n, child] : children_) child->zero_grad();
}

Tensor& Module::parameter(const std::string& name) {
  for (auto& [n, t] : parameters_)
    if (n == name) return t;
  throw IndexError("module has no parameter '" + name + "'");
}

Tensor& Module::buffer(const std::string& name) {
  for (auto& [n, t] : buffers_)
    if (n == name) return t;
  throw IndexError("module has no buffer '" + name + "'");
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [n, child] : children_) child->train(on);
}

namespace {
Tensor& upsert(std::vector<std::pair<std::string, Tensor>>& list, const std::string& name,
               Tensor t) {
  if (name.empty() || name.find('.') != std::string::npos)
    throw Error("invalid parameter/buffer name '" + name + "' (must be non-empty, without '.')");
  for (auto& [n, existing] : list)
    if (n == name) return existing = std::move(t);
  list.emplace_back(name, std::move(t));
  return list.back().second;
}
}  // namespace

Tensor& Module::register_parameter(const std::string& name, Tensor t) {
  if (t.defined() && is_floating_point(t.dtype()) && t.is_leaf())
    t.requires_grad_();
  else if (t.defined() && !t.is_leaf())
    t = t.detach().requires_grad_();
  return upsert(parameters_, name, std::move(t));
}
Tensor& Module::register_buffer(const std::string& name, Tensor t) {
  return upsert(buffers_, name, std::move(t));
}

void Module::register_module(const std::string& name, std::shared_ptr<Module> m) {
  if (!m) throw Error("register_module('" + name + "'): null module");
  children_.emplace_back(name, std::move(m));
}

}  // namespace hetero::nn
