// SPDX-License-Identifier: Apache-2.0
#include "fashion_mnist.hpp"

#include <hetero/data/idx.hpp>
#include <hetero/factories.hpp>

namespace fashion_mnist {

const std::vector<std::string>& class_names() {
  static const std::vector<std::string> names{"t-shirt", "trouser",   "pullover", "dress",
                                              "coat",    "sandal",    "shirt",    "sneaker",
                                              "bag",     "ankle boot"};
  return names;
}

Split load(const std::filesystem::path& dir, const std::string& prefix, std::int64_t limit) {
  // hetero's public reader (<hetero/data/idx.hpp>): images float32 [n, 1, 28, 28] in [0, 1].
  const auto data = hetero::data::fashion_mnist(dir, prefix == "train", limit);
  Split s;
  s.images = data->tensors()[0].to_vector<float>();
  s.labels = data->tensors()[1].to_vector<std::int64_t>();
  return s;
}

}  // namespace fashion_mnist
