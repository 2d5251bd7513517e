// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/flatten.hpp>

#include <utility>

#include <hetero/error.hpp>
#include <hetero/manipulation.hpp>

namespace hetero::nn {

Flatten::Flatten(std::int64_t start_dim, std::int64_t end_dim) : start_(start_dim), end_(end_dim) {}

Tensor Flatten::forward(const Tensor& x) {
  const std::int64_t n = x.dim();
  if (n == 0) return x.reshape({1});
  const auto wrap = [n](std::int64_t d) {
    if (d < -n || d >= n)
      throw IndexError("Flatten: dimension " + std::to_string(d) + " out of range for a " +
                       std::to_string(n) + "-dimensional input");
    return d < 0 ? d + n : d;
  };
  const std::int64_t s = wrap(start_), e = wrap(end_);
  if (s > e)
    throw ShapeError("Flatten: start_dim " + std::to_string(start_) + " comes after end_dim " +
                     std::to_string(end_));
  Shape shape(x.shape().begin(), x.shape().begin() + s);
  std::int64_t merged = 1;
  for (std::int64_t d = s; d <= e; ++d) merged *= x.size(d);
  shape.push_back(merged);
  shape.insert(shape.end(), x.shape().begin() + e + 1, x.shape().end());
  return x.reshape(shape);
}

Unflatten::Unflatten(std::int64_t dim, std::vector<std::int64_t> unflattened_size)
    : dim_(dim), sizes_(std::move(unflattened_size)) {}

Tensor Unflatten::forward(const Tensor& x) { return unflatten(x, dim_, sizes_); }

}  // namespace hetero::nn
