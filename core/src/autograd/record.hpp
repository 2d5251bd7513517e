// SPDX-License-Identifier: Apache-2.0
#pragma once
// How operations record themselves (Note [Autograd]): compute under NoGradGuard, then
//   return detail::record("MulBackward", out, {a, b}, [&] {
//     return [sa = saved(a), sb = saved(b)](const Tensor& g) {
//       return Gradients{unbroadcast(g * sb, sa.shape()), unbroadcast(g * sa, sb.shape())};
//     };
//   });
// record() returns `out` untouched, and does not even build the backward closure, unless
// grad mode is on and an input requires grad.
#include <functional>
#include <initializer_list>
#include <utility>

#include <hetero/autograd.hpp>
#include <hetero/tensor.hpp>

#include "node.hpp"

namespace hetero::detail {

/// True when grad mode is on and some input requires grad (undefined inputs do not).
bool needs_grad(std::initializer_list<const Tensor*> inputs);

/// Collects, for its scope, the tensors saved() on this thread: record() opens one around
/// make_backward(), so every closure's saved tensors reach its node. Nests. Only record()
/// opens one (Note [Autograd]: one way to record a node).
class SavedTensors {
 public:
  SavedTensors() noexcept;
  ~SavedTensors();
  SavedTensors(const SavedTensors&) = delete;
  SavedTensors& operator=(const SavedTensors&) = delete;
  /// What was saved so far, moved out.
  std::vector<SavedVersion> take() noexcept { return std::move(saved_); }
  /// Adds `t` (its storage and version now) to the innermost open collector. Throws
  /// InternalError when none is open: saved() outside record()'s make_backward() would drop
  /// the saved-version check without a sound.
  static void note(const Tensor& t);

 private:
  std::vector<SavedVersion> saved_;
  SavedTensors* outer_;
};

namespace record_detail {
/// Attaches a new node named `name` with `fn`, which saved `saved`, to `out` (a fresh
/// tensor); `inputs` may hold undefined tensors (an absent bias), which get no edge. Called
/// by record() only.
void attach(Tensor& out, const char* name, std::vector<Tensor> inputs, BackwardFn fn,
            std::vector<SavedVersion> saved);
}  // namespace record_detail

/// Records `out` as computed from `inputs` when grad mode is on and an input requires
/// grad; the one way an op records a node. `make_backward()` returns the backward function
/// (Note [Backward formulas]: its closure calls a formula with what it captured); it is
/// called only then, under a SavedTensors collector, so an op run without gradients never
/// builds its closure (saved tensors, shapes): the common inference path allocates nothing
/// for autograd. Undefined inputs (an absent bias) are allowed and get no edge.
template <class Inputs, class MakeBackward>
Tensor record_from(const char* name, Tensor out, const Inputs& inputs,
                   MakeBackward&& make_backward) {
  bool any = false;
  if (is_grad_enabled())
    for (const Tensor& t : inputs) any = any || (t.defined() && t.requires_grad());
  if (any) {
    SavedTensors saved;
    BackwardFn fn(make_backward());
    record_detail::attach(out, name, std::vector<Tensor>(inputs.begin(), inputs.end()),
                          std::move(fn), saved.take());
  }
  return out;
}
template <class MakeBackward>
Tensor record(const char* name, Tensor out,
              std::initializer_list<std::reference_wrapper<const Tensor>> inputs,
              MakeBackward&& make_backward) {
  return record_from(name, std::move(out), inputs, std::forward<MakeBackward>(make_backward));
}
/// As record(), for a number of inputs known at run time (cat).
template <class MakeBackward>
Tensor record(const char* name, Tensor out, const std::vector<Tensor>& inputs,
              MakeBackward&& make_backward) {
  return record_from(name, std::move(out), inputs, std::forward<MakeBackward>(make_backward));
}

/// Marks the node that recorded `out` (when one did) as a slice of its one input: `view_of`
/// maps a gradient of the input's shape to the view that `out` is of it (Note [Slice
/// gradients]). For narrow and select, whose fn also computes the gradient the old way.
void set_slice(const Tensor& out, std::function<Tensor(const Tensor&)> view_of);
template <class F>
Tensor untracked(F&& f) {
  NoGradGuard no_grad;
  return f();
}

/// A handle for a backward closure: same storage, no autograd state (no cycles); its
/// version is noted for the node (Note [Saved tensor versions]). Only inside record()'s
/// make_backward(): elsewhere it throws InternalError.
inline Tensor saved(const Tensor& t) {
  SavedTensors::note(t);
  return t.detach();
}
/// Sums `g` over the dimensions that broadcasting added or expanded, so that it has
/// `shape` (the inverse of NumPy broadcasting).
Tensor unbroadcast(const Tensor& g, const Shape& shape);
/// `g` broadcast to `shape` (materialised).
Tensor expand_to(const Tensor& g, const Shape& shape);
/// 1 where x != 0, else 0, in x's dtype (the cast to bool is `x != 0`): the exact 0/1
/// masks of gradient formulas, without comparison kernels.
Tensor nonzero_mask(const Tensor& x);

}  // namespace hetero::detail
