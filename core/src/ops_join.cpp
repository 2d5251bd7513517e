// SPDX-License-Identifier: Apache-2.0
// cat and stack: copies of each input into its slice of one new tensor (the backends' strided
// cast), so every backend runs them; autograd hands each input its slice of the gradient.
#include <string>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/node.hpp"
#include "autograd/record.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "promotion.hpp"

namespace hetero {

namespace {
// cat's node: every input is recorded, the skipped empty ones too (their gradient is empty,
// as torch's).
Tensor record_cat(const std::vector<Tensor>& tensors, std::int64_t d, const Tensor& out) {
  return detail::record("CatBackward", out, tensors, [&] {
    std::vector<std::int64_t> sizes;
    std::vector<DType> dtypes;
    for (const Tensor& t : tensors) {
      const bool skipped = t.dim() == 1 && t.numel() == 0;
      sizes.push_back(skipped ? -1 : t.shape()[static_cast<std::size_t>(d)]);
      dtypes.push_back(t.dtype());
    }
    return
        [sizes, dtypes, d](const Tensor& g) { return detail::formulas::cat(g, d, sizes, dtypes); };
  });
}
}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim) {
  const detail::prof::Scope op_scope("cat", tensors.empty() ? Tensor() : tensors[0]);
  if (tensors.empty()) throw ValueError("cat: expected a non-empty list of tensors (as torch)");
  // As torch: a 1-D tensor with no elements is skipped (legacy), 0-d tensors are refused.
  std::vector<const Tensor*> parts;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    detail::impl_of(t, "cat");
    if (t.dim() == 0)
      throw ShapeError("cat: tensor " + std::to_string(i) +
                       " is 0-d and cannot be concatenated (as torch); unsqueeze it first");
    if (!(t.dim() == 1 && t.numel() == 0)) parts.push_back(&t);
  }
  const Tensor& first = parts.empty() ? tensors[0] : *parts[0];
  DType dtype = tensors[0].dtype();
  for (const Tensor& t : tensors) {
    detail::check_same_device("cat", {&tensors[0], &t});
    dtype = detail::promote_types(dtype, t.dtype());
  }
  // Only skipped inputs: an empty 1-D result, still recorded (torch's has a grad_fn too).
  const std::int64_t d = parts.empty() ? 0 : detail::wrap_dim(dim, first.dim(), "cat");
  if (parts.empty())
    return record_cat(tensors, d,
                      full({0}, 0.0, TensorOptions().dtype(dtype).device(first.device())));
  Shape shape = first.shape();
  shape[static_cast<std::size_t>(d)] = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const Tensor& t = *parts[k];
    bool fits = t.dim() == first.dim();
    for (std::int64_t j = 0; fits && j < t.dim(); ++j)
      fits = j == d ||
             t.shape()[static_cast<std::size_t>(j)] == first.shape()[static_cast<std::size_t>(j)];
    if (!fits)
      throw ShapeError("cat: sizes of tensors must match except in dimension " + std::to_string(d) +
                       ": tensor 0 has shape " + detail::shape_str(first.shape()) + ", tensor " +
                       std::to_string(&t - tensors.data()) + " has shape " +
                       detail::shape_str(t.shape()) + " (as torch)");
    shape[static_cast<std::size_t>(d)] += t.shape()[static_cast<std::size_t>(d)];
  }
  Tensor out = detail::new_tensor_like(shape, dtype, first);
  {
    NoGradGuard no_grad;
    std::int64_t offset = 0;
    for (const Tensor* t : parts) {
      const std::int64_t n = t->shape()[static_cast<std::size_t>(d)];
      if (n > 0) out.narrow(d, offset, n).copy_(*t);
      offset += n;
    }
  }
  return record_cat(tensors, d, out);
}

Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim) {
  const detail::prof::Scope op_scope("stack", tensors.empty() ? Tensor() : tensors[0]);
  if (tensors.empty()) throw ValueError("stack: expected a non-empty list of tensors (as torch)");
  detail::impl_of(tensors[0], "stack");
  const Shape& shape = tensors[0].shape();
  const std::int64_t d = detail::wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    detail::impl_of(tensors[i], "stack");
    if (tensors[i].shape() != shape)
      throw ShapeError("stack: expects each tensor to be equal size, but got " +
                       detail::shape_str(shape) + " at entry 0 and " +
                       detail::shape_str(tensors[i].shape()) + " at entry " + std::to_string(i) +
                       " (as torch)");
    parts.push_back(tensors[i].unsqueeze(d));
  }
  return cat(parts, d);
}

}  // namespace hetero
