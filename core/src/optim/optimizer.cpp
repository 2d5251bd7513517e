// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/optimizer.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/log.hpp>

#include "state_entries.hpp"

namespace hetero::optim {

Optimizer::Optimizer(std::vector<std::vector<Tensor>> groups, const char* who) : who_(who) {
  const std::string w(who);
  if (groups.empty()) throw ValueError(w + ": optimizer got an empty parameter list (as torch)");
  std::unordered_map<const void*, std::size_t> first_listing;  // impl -> index in params_
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty())
      throw ValueError(w + ": optimizer got an empty parameter list" +
                       (groups.size() > 1 ? " in parameter group " + std::to_string(g) : "") +
                       " (as torch)");
    Group group;
    group.begin = params_.size();
    for (std::size_t k = 0; k < groups[g].size(); ++k) {
      const Tensor& p = groups[g][k];
      const std::string where = "parameter " + std::to_string(k) + " of group " + std::to_string(g);
      if (!p.defined()) throw ValueError(w + ": " + where + " is an undefined tensor");
      if (!p.is_leaf())
        throw ValueError(w + ": can't optimize a non-leaf Tensor (" + where + ", as torch)");
      // A tensor listed before (is_same: the same impl): in an earlier group an error, in
      // this one a warning, as torch 1.13 (which keeps both; each step then updates it twice).
      const auto [seen, first] = first_listing.emplace(p.impl().get(), params_.size());
      if (!first) {
        const std::size_t i = seen->second;
        if (group_of_[i] != g)
          throw ValueError(w + ": some parameters appear in more than one parameter group (" +
                           where + " is also in group " + std::to_string(group_of_[i]) +
                           ", as torch)");
        log_message(LogLevel::warn,
                    w + ": optimizer contains a parameter group with duplicate parameters (" +
                        where + " is also parameter " + std::to_string(i - group.begin) +
                        "); each step updates it once per listing, as torch's");
      }
      params_.push_back(p);
      group_of_.push_back(g);
    }
    group.end = params_.size();
    groups_.push_back(std::move(group));
  }
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (auto& p : params_) {
    Tensor& g = p.mutable_grad();
    if (set_to_none)
      g = Tensor();
    else if (g.defined())
      g.copy_(zeros_like(g));
  }
}

void Optimizer::check_group(std::size_t group) const {
  if (group >= groups_.size())
    throw IndexError(std::string(who_) + ": parameter group " + std::to_string(group) +
                     " is out of range (the optimiser has " + std::to_string(groups_.size()) + ")");
}

std::vector<Tensor> Optimizer::param_group(std::size_t group) const {
  check_group(group);
  const Group& g = groups_[group];
  return {params_.begin() + static_cast<std::ptrdiff_t>(g.begin),
          params_.begin() + static_cast<std::ptrdiff_t>(g.end)};
}

double Optimizer::lr(std::size_t group) const { return *get(group, "lr"); }

void Optimizer::set_lr(double lr) {
  if (!(lr >= 0)) set(0, "lr", lr);  // throws the ValueError before anything changes
  for (std::size_t g = 0; g < groups_.size(); ++g) set(g, "lr", lr);
}

void Optimizer::set_lr(std::size_t group, double lr) { set(group, "lr", lr); }

std::optional<double> Optimizer::get(std::size_t group, const std::string& key) const {
  check_group(group);
  for (const auto& [k, v] : options_of(group))
    if (k == key) return v;
  const auto& extra = groups_[group].extra;
  if (auto it = extra.find(key); it != extra.end()) return it->second;
  return std::nullopt;
}

void Optimizer::set(std::size_t group, const std::string& key, double value) {
  assign(group, key, value, true);
}

void Optimizer::assign(std::size_t group, const std::string& key, double value, bool checked) {
  check_group(group);
  if (key == "params") throw ValueError(std::string(who_) + ": 'params' is not a hyper-parameter");
  if (!set_option(group, key, value, checked)) groups_[group].extra[key] = value;
}

std::vector<std::string> Optimizer::keys(std::size_t group) const {
  check_group(group);
  std::vector<std::string> out;
  for (const auto& [k, v] : options_of(group)) out.push_back(k);
  for (const auto& [k, v] : groups_[group].extra) out.push_back(k);
  return out;
}

nn::NamedTensors Optimizer::state_dict() const {
  nn::NamedTensors out = param_state();
  const auto host = TensorOptions(Device::cpu()).dtype(DType::float64);
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    for (const std::string& key : keys(g))
      out.push_back(prefix + key, full({}, *get(g, key), host));
    std::vector<std::int64_t> indices;
    for (std::size_t i = groups_[g].begin; i < groups_[g].end; ++i)
      indices.push_back(static_cast<std::int64_t>(i));
    out.push_back(prefix + "params", from_vector(indices, TensorOptions(Device::cpu())));
  }
  return out;
}

void Optimizer::load_state_dict(const nn::NamedTensors& state) {
  const std::string w = std::string(who_) + ".load_state_dict: ";
  nn::NamedTensors param_entries;
  // The loaded keys per group, in the order given; groups without entries keep theirs.
  std::vector<std::optional<std::vector<std::pair<std::string, double>>>> loaded(groups_.size());
  for (const auto& [key, t] : state) {
    if (key.rfind("state.", 0) == 0) {
      param_entries.push_back(key, t);
      continue;
    }
    const auto bad = [&](const std::string& why) {
      return ValueError(w + "entry '" + key + "' " + why);
    };
    if (key.rfind("param_groups.", 0) != 0)
      throw bad("does not start with 'state.' or 'param_groups.'");
    const std::size_t start = 13, dot = key.find('.', start);
    if (dot == std::string::npos) throw bad("has no '.<key>' after the group index");
    const std::size_t g = detail::parse_index(key.substr(start, dot - start),
                                              [&] { return bad("has no group index"); });
    if (g >= groups_.size())
      throw bad("names parameter group " + std::to_string(g) + ", but the optimiser has " +
                std::to_string(groups_.size()));
    const std::string name = key.substr(dot + 1);
    const Group& group = groups_[g];
    if (name == "params") {
      std::vector<std::int64_t> want;
      for (std::size_t i = group.begin; i < group.end; ++i)
        want.push_back(static_cast<std::int64_t>(i));
      if (t.dim() != 1 || t.to(DType::int64).to_vector<std::int64_t>() != want)
        throw bad("lists other parameters than this optimiser's group " + std::to_string(g) + " (" +
                  std::to_string(want.size()) + " parameters from index " +
                  std::to_string(group.begin) + "): the groups do not match");
      continue;
    }
    if (t.numel() != 1) throw bad("has " + std::to_string(t.numel()) + " elements, not one");
    if (!loaded[g]) loaded[g].emplace();
    loaded[g]->emplace_back(name, t.to(DType::float64).reshape({}).item<double>());
  }
  // On any error every group's options are put back.
  std::vector<std::vector<std::pair<std::string, double>>> before;
  for (std::size_t g = 0; g < groups_.size(); ++g) before.push_back(options_of(g));
  const auto restore = [&] {
    for (std::size_t g = 0; g < groups_.size(); ++g)
      for (const auto& [k, v] : before[g]) set_option(g, k, v, false);
  };
  std::vector<std::map<std::string, double>> extras;
  for (const Group& group : groups_) extras.push_back(group.extra);
  try {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (!loaded[g]) continue;
      extras[g].clear();
      // Unchecked, as torch's: a schedule may have rounded an lr to -1e-18.
      for (const auto& [k, v] : *loaded[g])
        if (!set_option(g, k, v, false)) extras[g][k] = v;
    }
    load_param_state(param_entries);
  } catch (...) {
    restore();
    throw;
  }
  for (std::size_t g = 0; g < groups_.size(); ++g) groups_[g].extra = std::move(extras[g]);
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
    const std::size_t index =
        parse_index(key.substr(6, dot - 6), [&] { return bad("has no parameter index"); });
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
