// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file autograd.hpp
/// Gradient mode, as torch.no_grad / torch::NoGradGuard. Reverse-mode automatic
/// differentiation itself is reached through Tensor: requires_grad_(), backward(),
/// grad(), detach() (tensor.hpp). Every operation of ops.hpp and every view of
/// tensor.hpp records how to compute its gradient when grad mode is on and an operand
/// requires grad; backward() walks those records from the output back to the leaves and
/// accumulates into their grad(), on each leaf's own device (a copy between devices
/// records its inverse copy, so gradients cross device boundaries as activations did).
/// Gradients are not themselves recorded (no higher-order gradients).
#include <cstdint>

#include <hetero/export.hpp>

namespace hetero {

class Tensor;

/// True when operations record gradients on this thread (the default).
HETERO_API bool is_grad_enabled() noexcept;
/// Turns recording on or off for this thread.
HETERO_API void set_grad_enabled(bool enabled) noexcept;

/// Disables gradient recording on this thread for its scope, restoring the previous
/// mode on exit, as torch::NoGradGuard / `with torch.no_grad():`. Use it for
/// evaluation and for optimiser updates.
class HETERO_API NoGradGuard {
 public:
  NoGradGuard() noexcept : previous_(is_grad_enabled()) { set_grad_enabled(false); }
  ~NoGradGuard() { set_grad_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

/// How many in-place writes (copy_, optimiser steps, collectives, increment_version) the
/// storage of `t` has had; views and detached tensors share the count, as
/// torch.Tensor._version. backward() refuses a tensor saved for a gradient whose version
/// changed since it was saved (Note [Saved tensor versions]). Throws Error when `t` is
/// undefined.
HETERO_API std::uint64_t tensor_version(const Tensor& t);
/// Counts a write into `t` made outside hetero's ops (an MPI collective writing its memory
/// in place, an application's own kernel through data_ptr), so that backward() refuses it
/// where `t` was saved for a gradient; as torch.autograd.graph.increment_version. Throws
/// Error when `t` is undefined.
HETERO_API void increment_version(const Tensor& t);

}  // namespace hetero
