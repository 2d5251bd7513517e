// SPDX-License-Identifier: Apache-2.0
#pragma once
// The optimisers' state_dict layout ("state.<i>.<name>", Optimizer::state_dict) read back.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/optim/optimizer.hpp>

namespace hetero::optim::detail {

/// The entries of `state` per parameter index, by state name; ValueError / ShapeError (see
/// Optimizer::load_state_dict) for a malformed name, an index out of range, a name not in
/// `names`, or a shape that is not the parameter's ("step": one element).
std::vector<std::map<std::string, Tensor>> split_state(const nn::NamedTensors& state,
                                                       const std::vector<Tensor>& params,
                                                       const std::set<std::string>& names,
                                                       const char* who);
/// The parameters of each group, for Optimizer's constructor.
template <class Options>
std::vector<std::vector<Tensor>> params_of(const std::vector<ParamGroup<Options>>& groups) {
  std::vector<std::vector<Tensor>> out;
  for (const auto& g : groups) out.push_back(g.params);
  return out;
}
/// The options of each group: its own, or `defaults`; each checked by `check`.
template <class Options, class Check>
std::vector<Options> options_of(const std::vector<ParamGroup<Options>>& groups,
                                const Options& defaults, Check check) {
  std::vector<Options> out;
  for (const auto& g : groups) out.push_back(g.options.value_or(defaults));
  check(defaults);
  for (const auto& o : out) check(o);
  return out;
}
/// Sets the double `*field` of a copy of `options` to `value`, checks the copy with `check`
/// (which throws) and then stores it: the options change only when valid.
template <class Options, class Check>
void set_checked(Options& options, double Options::*field, double value, Check check) {
  Options copy = options;
  copy.*field = value;
  check(copy);
  options = copy;
}

/// The decimal index `digits` ("12"); throws bad() unless it is all digits and fits.
template <class MakeError>
std::size_t parse_index(const std::string& digits, MakeError bad) {
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    throw bad();
  return static_cast<std::size_t>(std::stoul(digits));
}
/// `t` as the optimiser's own tensor (a copy) on `like`'s device in `like`'s dtype.
Tensor adopt(const Tensor& t, const Tensor& like);

}  // namespace hetero::optim::detail
