// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every optimiser's step() checks before it updates anything: each defined gradient has
// its parameter's shape, dtype and device, as torch checks when a gradient is assigned
// ("assigned grad has data of a different size / type / located on a different device").
// hetero's Tensor::mutable_grad() takes any tensor, so without this a wrong gradient failed
// inside the update after earlier parameters had stepped (a float64 gradient of a float32
// parameter even raised InternalError).
#include <string>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/tensor.hpp>

#include "../op_helpers.hpp"

namespace hetero::optim::detail {

/// ShapeError, DTypeError or DeviceMismatchError naming `who` and the parameter's index
/// (over all groups, as state_dict's) for the first gradient that does not fit its parameter;
/// nothing is changed.
inline void check_gradients(const std::vector<Tensor>& params, const char* who) {
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    const Tensor g = p.grad();
    if (!g.defined()) continue;
    const std::string where = std::string(who) + ": the gradient of parameter " + std::to_string(i);
    if (g.shape() != p.shape())
      throw ShapeError(where + " has shape " + hetero::detail::shape_str(g.shape()) +
                       ", the parameter " + hetero::detail::shape_str(p.shape()) +
                       " (torch: \"assigned grad has data of a different size\")");
    if (g.dtype() != p.dtype())
      throw DTypeError(where + " is " + std::string(dtype_name(g.dtype())) + ", the parameter " +
                       std::string(dtype_name(p.dtype())) +
                       " (torch: \"assigned grad has data of a different type\")");
    if (g.device() != p.device())
      throw DeviceMismatchError(
          where + " is on " + g.device().str() + ", the parameter on " + p.device().str() +
          " (torch: \"assigned grad has data located on a different device\")");
  }
}

}  // namespace hetero::optim::detail
