// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/containers.hpp>

#include <hetero/error.hpp>

namespace hetero::nn {

void ModuleList::push_back(std::shared_ptr<Module> m) {
  register_module(std::to_string(children().size()), std::move(m));
}

Module& ModuleList::operator[](std::size_t i) const {
  if (i >= children().size())
    throw IndexError("ModuleList: index " + std::to_string(i) + " is out of range (size " +
                     std::to_string(children().size()) + ")");
  return *children()[i].second;
}

Tensor ModuleList::forward(const Tensor&) {
  throw NotImplementedError("ModuleList has no forward: iterate over its modules (as torch)");
}

void ModuleDict::insert(const std::string& key, std::shared_ptr<Module> m) {
  if (key.empty() || key.find('.') != std::string::npos)
    throw ValueError("ModuleDict: key \"" + key +
                     "\" must be non-empty and contain no '.' (as torch)");
  if (contains(key)) throw ValueError("ModuleDict: key \"" + key + "\" is already present");
  register_module(key, std::move(m));
}

Module& ModuleDict::operator[](const std::string& key) const {
  for (const auto& [k, m] : children())
    if (k == key) return *m;
  throw IndexError("ModuleDict: no module under \"" + key + "\"");
}

bool ModuleDict::contains(const std::string& key) const {
  for (const auto& [k, m] : children())
    if (k == key) return true;
  return false;
}

std::vector<std::string> ModuleDict::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, m] : children()) out.push_back(k);
  return out;
}

Tensor ModuleDict::forward(const Tensor&) {
  throw NotImplementedError("ModuleDict has no forward: look its modules up by key (as torch)");
}

}  // namespace hetero::nn
