// SPDX-License-Identifier: Apache-2.0
#pragma once
// The autograd graph (Note [Autograd], docs/design/autograd.md): each tensor produced by
// a recorded operation holds an AutogradMeta whose grad_fn is the Node of that
// operation. A Node maps the gradient of its output to the gradients of its inputs and
// points at the inputs' nodes; a leaf that requires grad is reached through an
// accumulate node that adds into the leaf's AutogradMeta::grad. Nodes point backwards
// only and save detached tensors, so the graph has no cycles.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <hetero/tensor.hpp>

namespace hetero::detail {

struct Node;

struct Storage;

/// A tensor a backward closure saved, as it was when saved (Note [Saved tensor versions],
/// storage.hpp). The closure keeps the storage alive for as long as it can run.
struct SavedVersion {
  const Storage* storage = nullptr;
  std::uint64_t version = 0;
  DType dtype = DType::float32;
  Shape shape;
};

/// A registered hook with its on/off switch (HookHandle::remove turns it off).
template <class Fn>
struct Hook {
  std::shared_ptr<bool> active;
  Fn fn;
};

/// Per-tensor autograd state (absent for tensors that never required grad).
struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;                    // accumulated by backward(); undefined until then
  std::shared_ptr<Node> grad_fn;  // null for leaves
  // A leaf's: run on its gradient before it is accumulated / after it was.
  std::vector<Hook<GradHook>> hooks;
  std::vector<Hook<std::function<void()>>> post_accumulate_hooks;  // bound to the leaf
  // A leaf's one AccumulateGrad node while a graph uses it (as torch's grad_accumulator_):
  // the engine then accumulates the leaf once per pass, however many ops used it, which
  // post-accumulate hooks rely on. Guarded by `mutex` (threads may record ops on one leaf).
  std::weak_ptr<Node> grad_accumulator;
  std::mutex mutex;
};

/// The gradients of a node's inputs, in input order (undefined: no gradient).
using Gradients = std::vector<Tensor>;
/// Maps the output's gradient to the inputs' gradients. Runs with grad mode off.
using BackwardFn = std::function<Gradients(const Tensor& grad_output)>;

struct Node {
  std::string name;                         // "AddBackward", "AccumulateGrad"
  std::vector<std::shared_ptr<Node>> next;  // per input: its node, or null
  BackwardFn fn;                            // empty once released by backward()
  std::vector<SavedVersion> saved;          // what fn saved, checked before it runs
  std::vector<Hook<GradHook>> pre_hooks;    // a non-leaf tensor's hooks, on its gradient
  std::shared_ptr<AutogradMeta> leaf;       // set for AccumulateGrad nodes
  // A view node's (narrow, select): the view of an input-shaped gradient that the output
  // is. The engine then adds the output's gradient into that view of the input's pending
  // gradient instead of calling fn (Note [Slice gradients], engine.cpp).
  std::function<Tensor(const Tensor&)> slice;
  Shape shape;  // of the output: incoming gradients must match
  DType dtype = DType::float32;
  Device device = Device::cpu();
  bool released = false;  // backward() ran without retain_graph

  Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  /// Releases the graph behind this node iteratively: a node whose last owner is this chain
  /// gives up its `next` before it is destroyed, so dropping a 300k-op graph (`total =
  /// total + loss` in a loop) needs no stack depth per node (issue #25; as PyTorch's
  /// deleteNode).
  ~Node();
};

}  // namespace hetero::detail
