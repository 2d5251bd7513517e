// SPDX-License-Identifier: Apache-2.0
#pragma once
// The optimisers' state_dict layout ("state.<i>.<name>", Optimizer::state_dict) read back.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/nn/module.hpp>

namespace hetero::optim::detail {

/// The entries of `state` per parameter index, by state name; ValueError / ShapeError (see
/// Optimizer::load_state_dict) for a malformed name, an index out of range, a name not in
/// `names`, or a shape that is not the parameter's ("step": one element).
std::vector<std::map<std::string, Tensor>> split_state(const nn::NamedTensors& state,
                                                       const std::vector<Tensor>& params,
                                                       const std::set<std::string>& names,
                                                       const char* who);
/// `t` as the optimiser's own tensor (a copy) on `like`'s device in `like`'s dtype.
Tensor adopt(const Tensor& t, const Tensor& like);

}  // namespace hetero::optim::detail
