// SPDX-License-Identifier: Apache-2.0
// permute, flatten and expand: views over the same storage (strides rearranged, merged or
// set to 0), with their gradients, as torch.Tensor's.
#include <string>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/tensor.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "autograd/view_base.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "tensor_impl.hpp"

namespace hetero {

Tensor Tensor::permute(const std::vector<std::int64_t>& dims) const {
  const detail::prof::Scope op_scope("permute", *this);
  const auto& i = checked();
  const auto n = dim();
  if (static_cast<std::int64_t>(dims.size()) != n)
    throw ShapeError("permute: the tensor has " + std::to_string(n) + " dimensions but " +
                     std::to_string(dims.size()) + " were given (as torch)");
  Shape shape;
  std::vector<std::int64_t> strides, inverse(dims.size(), -1);
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const auto d = static_cast<std::size_t>(detail::wrap_dim(dims[k], n, "permute"));
    if (inverse[d] >= 0) throw ValueError("permute(): duplicate dims are not allowed (as torch)");
    inverse[d] = static_cast<std::int64_t>(k);
    shape.push_back(i.shape[d]);
    strides.push_back(i.strides[d]);
  }
  return detail::record(
      "PermuteBackward",
      detail::as_view(detail::strided_view(*this, shape, strides, i.offset), *this), {*this},
      [&] { return [inverse](const Tensor& g) { return detail::formulas::permute(g, inverse); }; });
}

Tensor Tensor::flatten(std::int64_t start_dim, std::int64_t end_dim) const {
  const detail::prof::Scope op_scope("flatten", *this);
  const auto& i = checked();
  const auto n = dim();
  if (n == 0) return reshape({1});
  const auto s = detail::wrap_dim(start_dim, n, "flatten"),
             e = detail::wrap_dim(end_dim, n, "flatten");
  if (s > e)
    throw ValueError("flatten() has invalid args: start_dim cannot come after end_dim (as torch)");
  Shape shape(i.shape.begin(), i.shape.begin() + s);
  std::int64_t merged = 1;
  for (std::int64_t d = s; d <= e; ++d) merged *= i.shape[static_cast<std::size_t>(d)];
  shape.push_back(merged);
  shape.insert(shape.end(), i.shape.begin() + e + 1, i.shape.end());
  return reshape(shape);
}

Tensor Tensor::expand(const Shape& target) const {
  const detail::prof::Scope op_scope("expand", *this);
  const auto& i = checked();
  const auto n = static_cast<std::int64_t>(i.shape.size()),
             m = static_cast<std::int64_t>(target.size());
  const auto fail = [&](const std::string& why) {
    return ShapeError("expand: " + why + ". Target sizes: " + detail::shape_str(target) +
                      ". Tensor sizes: " + detail::shape_str(i.shape) + " (as torch)");
  };
  if (m < n)
    throw fail("the number of sizes provided (" + std::to_string(m) +
               ") must be greater or equal to the number of dimensions in the tensor (" +
               std::to_string(n) + ")");
  Shape shape(target.size());
  std::vector<std::int64_t> strides(target.size(), 0);
  for (std::int64_t k = m - 1; k >= 0; --k) {
    const std::int64_t own = k - (m - n);  // this tensor's dimension, or < 0 for a new one
    const std::int64_t want = target[static_cast<std::size_t>(k)];
    if (own < 0) {
      if (want < 0)
        throw fail("the expanded size " + std::to_string(want) +
                   " isn't allowed in a leading, non-existing dimension " + std::to_string(k));
      shape[static_cast<std::size_t>(k)] = want;
      continue;
    }
    const std::int64_t size = i.shape[static_cast<std::size_t>(own)];
    if (want == -1 || want == size) {
      shape[static_cast<std::size_t>(k)] = size;
      strides[static_cast<std::size_t>(k)] = i.strides[static_cast<std::size_t>(own)];
    } else if (size == 1 && want >= 0) {
      shape[static_cast<std::size_t>(k)] = want;
    } else {
      throw fail("the expanded size of the tensor (" + std::to_string(want) +
                 ") must match the existing size (" + std::to_string(size) +
                 ") at non-singleton dimension " + std::to_string(k));
    }
  }
  detail::checked_numel(shape);
  return detail::record(
      "ExpandBackward",
      detail::as_view(detail::strided_view(*this, shape, strides, i.offset), *this), {*this}, [&] {
        return [from = i.shape](const Tensor& g) { return detail::formulas::expand(g, from); };
      });
}

}  // namespace hetero
