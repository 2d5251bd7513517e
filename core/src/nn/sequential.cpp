// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/sequential.hpp>

#include <hetero/error.hpp>

namespace hetero::nn {

void Sequential::push_back(std::shared_ptr<Module> m) {
  register_module(std::to_string(size()), std::move(m));
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (const auto& [name, m] : children()) y = m->forward(y);
  return y;
}

Module& Sequential::operator[](std::size_t i) const {
  if (i >= size())
    throw IndexError("Sequential index " + std::to_string(i) + " out of range (size " +
                     std::to_string(size()) + ")");
  return *children()[i].second;
}

}  // namespace hetero::nn
