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
#include <hetero/export.hpp>

namespace hetero {

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

}  // namespace hetero
