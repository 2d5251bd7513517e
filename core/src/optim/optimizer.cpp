// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/optimizer.hpp>

#include <string>

#include <hetero/error.hpp>

#include "state_entries.hpp"

namespace hetero::optim {

Optimizer::Optimizer(std::vector<Tensor> params, const char* who) : params_(std::move(params)) {
  for (const auto& p : params_)
    if (!p.defined() || !p.requires_grad())
      throw Error(std::string(who) + ": every parameter must be a tensor that requires grad");
}

void Optimizer::zero_grad() {
  for (auto& p : params_) p.mutable_grad() = Tensor();
}

namespace detail {

std::vector<std::map<std::string, Tensor>> split_state(const nn::NamedTensors& state,
                                                       const std::vector<Tensor>& params,
                                                       const std::set<std::string>& names,
                                                       const char* who) {
  std::vector<std::map<std::string, Tensor>> out(params.size());
  for (const auto& [key, t] : state) {
    // "state.<i>.<name>"
    const auto bad = [&](const std::string& why) {
      return ValueError(std::string(who) + ".load_state_dict: entry '" + key + "' " + why);
    };
    if (key.rfind("state.", 0) != 0) throw bad("does not start with 'state.'");
    const auto dot = key.find('.', 6);
    if (dot == std::string::npos) throw bad("has no '.<name>' after the parameter index");
    std::size_t index = 0;
    try {
      std::size_t used = 0;
      index = std::stoul(key.substr(6, dot - 6), &used);
      if (used != dot - 6) throw std::invalid_argument("digits");
    } catch (const std::exception&) {
      throw bad("has no parameter index");
    }
    if (index >= params.size())
      throw bad("names parameter " + std::to_string(index) + ", but the optimiser has " +
                std::to_string(params.size()));
    const std::string name = key.substr(dot + 1);
    if (!names.count(name)) throw bad("is not a state this optimiser keeps");
    const Tensor& p = params[index];
    const bool scalar = name == "step";
    if (scalar ? t.numel() != 1 : t.shape() != p.shape())
      throw ShapeError(std::string(who) + ".load_state_dict: entry '" + key + "' has shape " + [&] {
        std::string s = "[";
        for (std::size_t i = 0; i < t.shape().size(); ++i)
          s += (i ? ", " : "") + std::to_string(t.shape()[i]);
        return s + "]";
      }() + (scalar ? ", expected one element" : ", not its parameter's"));
    out[index][name] = t;
  }
  return out;
}

Tensor adopt(const Tensor& t, const Tensor& like) {
  NoGradGuard no_grad;
  const Tensor r = t.to(like.device()).to(like.dtype());
  // A copy the optimiser owns: its updates must not write into the caller's tensors.
  return r.is_same(t) ? r.clone() : r.contiguous();
}

}  // namespace detail
}  // namespace hetero::optim
