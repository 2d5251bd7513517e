// SPDX-License-Identifier: Apache-2.0
// Tensor::backward: reverse-mode accumulation over the recorded graph in topological
// order (Kahn's algorithm on the nodes reachable from the output), as
// torch.autograd.backward. Runs with grad mode off.
#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/internal_assert.hpp>
#include <hetero/ops.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../op_helpers.hpp"
#include "../profiler_record.hpp"
#include "../storage.hpp"
#include "../tensor_impl.hpp"
#include "node.hpp"
#include "view_base.hpp"

namespace hetero {
namespace {

using detail::Node;

// Checks and adapts one incoming gradient to the node's output (dtype cast; a shape
// or device difference is a bug in a gradient formula, reported rather than hidden).
Tensor conform(const Node& n, const Tensor& g) {
  if (g.shape() != n.shape || g.device() != n.device)
    throw Error("backward: gradient for " + n.name + " has shape " + detail::shape_str(g.shape()) +
                " on " + g.device().str() + ", expected " + detail::shape_str(n.shape) + " on " +
                n.device.str());
  return g.dtype() == n.dtype ? g : g.to(n.dtype);
}

// Note [Saved tensor versions] (storage.hpp): a tensor the node saved that was written in
// place since is refused, as torch's "modified by an inplace operation".
void check_saved_versions(const Node& n) {
  for (const detail::SavedVersion& s : n.saved) {
    const std::uint64_t now = s.storage->version.load();
    if (now != s.version)
      throw Error("backward: one of the tensors " + n.name + " saved for the gradient (" +
                  std::string(dtype_name(s.dtype)) + " " + detail::shape_str(s.shape) +
                  ") has been modified by an in-place operation (copy_, an optimiser step, a "
                  "collective) since: it is at version " +
                  std::to_string(now) + ", expected version " + std::to_string(s.version) +
                  " (as torch's version counter; clone() it before changing it, or change it "
                  "after backward)");
  }
}

// Note [Stealing gradients]: a gradient that nothing but the engine references (one handle
// on its TensorImpl, one TensorImpl on its storage, dense, no autograd record) may be kept or
// written in place instead of copied, as torch's AccumulateGrad steals `new_grad` when its
// use count allows and adds into `variable.grad` in place with grad mode off. A view, a
// tensor a hook or a saved closure kept, or the caller's seed is shared, and is copied.
bool sole_dense(const Tensor& t) {
  const auto& impl = t.impl();
  return impl.use_count() == 1 && impl->storage.use_count() == 1 && !impl->autograd &&
         t.is_contiguous();
}

// Whether `b` can be added into `a` in place: one shape, dtype and device, `a` dense.
bool adds_in_place(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && a.device() == b.device() &&
         a.is_contiguous();
}

// a += b in place when `a` is the engine's alone and the two match, else a = a + b.
void add_gradient(Tensor& a, const Tensor& b) {
  if (sole_dense(a) && adds_in_place(a, b))
    detail::binary_into(BinaryOp::add, a, b, a);
  else
    a = a + b;
}

// Note [Slice gradients]: a narrow or select node (Node::slice) passes its gradient on by
// adding it into the matching view of its input's pending gradient, which is made once,
// zero-filled, when the first slice arrives (and copied first where the engine does not own
// it alone: Note [Stealing gradients]). The node's fn would make a zero-filled gradient of
// the whole input for each slice and the engine then add them: `for t: x[t]` over a [T, ...]
// tensor (an RNN's steps, D2L 9.5's loop over the inputs) cost T zero-fills and T additions
// of all of x, quadratic in T. The values are the same: the first slice into a fresh buffer
// is copied, as the zero-filled gradient held it, and later ones add as the sum did.
void accumulate_slice(std::unordered_map<Node*, Tensor>& pending, const Node& n, Node* next,
                      const Tensor& g) {
  auto [it, inserted] = pending.try_emplace(next);
  Tensor& buffer = it->second;
  if (inserted) {
    buffer = zeros(next->shape, TensorOptions(next->device).dtype(next->dtype));
    Tensor view = n.slice(buffer);
    view.copy_(g);
    return;
  }
  if (!(sole_dense(buffer) && buffer.shape() == next->shape && buffer.dtype() == next->dtype))
    buffer = conform(*next, buffer).clone();
  Tensor view = n.slice(buffer);
  detail::binary_into(BinaryOp::add, view, g, view);
}

void accumulate(std::unordered_map<Node*, Tensor>& pending, Node* n, const Tensor& g) {
  Tensor c = conform(*n, g);
  auto [it, inserted] = pending.try_emplace(n, std::move(c));
  if (!inserted) add_gradient(it->second, c);  // try_emplace left c alone
}

// Runs the active `hooks` on `g` in order, each seeing the previous one's result
// (Tensor::register_hook). A snapshot: a hook may register another.
Tensor run_hooks(std::vector<detail::Hook<GradHook>> hooks, const Node& n, Tensor g) {
  for (const auto& h : hooks) {
    if (!*h.active) continue;
    const Tensor r = h.fn(g);
    if (!r.defined()) continue;
    if (r.shape() != g.shape() || r.device() != g.device())
      throw Error("backward: a hook on the gradient of " + n.name + " returned shape " +
                  detail::shape_str(r.shape()) + " on " + r.device().str() + ", expected " +
                  detail::shape_str(g.shape()) + " on " + g.device().str());
    g = r.dtype() == g.dtype() ? r : r.to(g.dtype());
  }
  return g;
}

// Accumulates a leaf's gradient for this pass, between its hooks.
// `incoming` is moved in, so that the engine's handle is its only one (Note [Stealing
// gradients]).
void run_leaf(Node& n, Tensor incoming) {
  auto& meta = *n.leaf;
  Tensor g = meta.hooks.empty() ? std::move(incoming) : run_hooks(meta.hooks, n, incoming);
  if (!meta.grad.defined())
    meta.grad = sole_dense(g) ? std::move(g) : g.clone();
  else if (adds_in_place(meta.grad, g))  // torch: grad += new_grad, whoever else holds grad
    detail::binary_into(BinaryOp::add, meta.grad, g, meta.grad);
  else
    meta.grad = meta.grad + g;
  if (meta.post_accumulate_hooks.empty()) return;
  const auto post = meta.post_accumulate_hooks;  // a snapshot, as run_hooks
  for (const auto& h : post)
    if (*h.active) h.fn();
}

}  // namespace

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  const auto& meta = detail::autograd_meta(*this);
  if (!meta || !meta->requires_grad)
    throw Error(
        "backward: the tensor does not require grad and has no grad_fn "
        "(call requires_grad_() on a leaf it depends on)");
  NoGradGuard no_grad;
  Tensor seed = gradient;
  if (!seed.defined()) {
    if (numel() != 1)
      throw ShapeError(
          "backward: a gradient can be created implicitly only for a tensor of one element, "
          "this one has shape " +
          detail::shape_str(shape()) + "; pass one");
    seed = ones(shape(), TensorOptions(device()).dtype(dtype()));
  }
  if (seed.shape() != shape())
    throw ShapeError("backward: gradient of shape " + detail::shape_str(seed.shape()) +
                     " for a tensor of shape " + detail::shape_str(shape()));
  detail::check_same_device("backward", {this, &seed});
  if (!meta->grad_fn) {  // a leaf: its gradient is the seed
    Node leaf;
    leaf.name = "AccumulateGrad";
    leaf.leaf = meta;
    run_leaf(leaf, seed.to(dtype()));
    return;
  }
  // Dependencies: how many edges from reachable nodes point at each node.
  std::unordered_map<Node*, int> deps;
  std::vector<Node*> stack{meta->grad_fn.get()};
  deps[meta->grad_fn.get()] = 0;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const auto& next : n->next) {
      if (!next) continue;
      if (deps.emplace(next.get(), 0).second) stack.push_back(next.get());
      ++deps[next.get()];
    }
  }
  std::unordered_map<Node*, Tensor> pending;
  accumulate(pending, meta->grad_fn.get(), seed);
  std::vector<Node*> ready{meta->grad_fn.get()};
  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    const auto found = pending.find(n);
    if (found == pending.end()) {  // no gradient reached this node: nothing flows on
      for (const auto& next : n->next)
        if (next && --deps[next.get()] == 0) ready.push_back(next.get());
      continue;
    }
    Tensor g = std::move(found->second);
    pending.erase(found);
    if (n->leaf) {
      run_leaf(*n, std::move(g));
      continue;
    }
    if (n->released)
      throw Error("backward: trying to go through " + n->name +
                  " a second time; its saved tensors were freed (pass retain_graph = true to the "
                  "first backward)");
    check_saved_versions(*n);
    if (n->slice && n->next.size() == 1) {
      const detail::prof::Scope node_scope(n->name, g);
      const Tensor out_grad = n->pre_hooks.empty() ? g : run_hooks(n->pre_hooks, *n, g);
      Node* next = n->next[0].get();
      if (next) accumulate_slice(pending, *n, next, out_grad);
      if (!retain_graph) {
        n->fn = nullptr;
        n->slice = nullptr;
        n->released = true;
      }
      if (next && --deps[next] == 0) ready.push_back(next);
      continue;
    }
    detail::Gradients grads;
    {
      // The node's kernels under one op event named for it (as torch.profiler's
      // "autograd::engine::evaluate_function: MulBackward0"): backward's kernels used to
      // belong to no op (issue #47 item 3).
      const detail::prof::Scope node_scope(n->name, g);
      grads = n->fn(n->pre_hooks.empty() ? g : run_hooks(n->pre_hooks, *n, g));
    }
    HETERO_INTERNAL_ASSERT(grads.size() == n->next.size(),
                           "backward: " + n->name + " returned " + std::to_string(grads.size()) +
                               " gradients for " + std::to_string(n->next.size()) + " inputs");
    if (!retain_graph) {
      n->fn = nullptr;
      n->released = true;
    }
    for (std::size_t i = 0; i < n->next.size(); ++i) {
      Node* next = n->next[i].get();
      if (!next) continue;
      if (grads[i].defined()) accumulate(pending, next, grads[i]);
      if (--deps[next] == 0) ready.push_back(next);
    }
  }
}

}  // namespace hetero
