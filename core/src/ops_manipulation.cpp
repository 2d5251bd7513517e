// SPDX-License-Identifier: Apache-2.0
// tril/triu, flip, repeat, split/chunk/unbind, unflatten and one_hot
// (<hetero/manipulation.hpp>):
// compositions of views, comparisons, where, index_select and copies, so every backend runs
// them and autograd records them through those ops.
#include <hetero/manipulation.hpp>

#include <exception>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

namespace {

using detail::list_str;
using detail::shape_str;

// `a` where column - row of its last two dimensions passes `keep`, else 0 of a's dtype.
template <class Keep>
Tensor triangle(const Tensor& a, const char* op, Keep keep) {
  const detail::prof::Scope op_scope(op, a);
  detail::impl_of(a, op);
  if (a.numel() == 0) return a.clone();  // before the rank check, as torch 1.13's
  if (a.dim() < 2)
    throw ShapeError(std::string(op) +
                     ": input tensor must have at least 2 dimensions, got shape " +
                     shape_str(a.shape()) + " (as torch)");
  const auto index = TensorOptions(a.device()).dtype(DType::int64);
  const std::int64_t rows = a.shape()[a.shape().size() - 2], cols = a.shape().back();
  const Tensor offset = arange(cols, index) - arange(rows, index).unsqueeze(1);  // column - row
  return where(keep(offset), a, full({}, 0.0, TensorOptions(a.device()).dtype(a.dtype())));
}

}  // namespace

Tensor tril(const Tensor& a, std::int64_t diagonal) {
  return triangle(a, "tril", [diagonal](const Tensor& offset) { return offset <= diagonal; });
}

Tensor triu(const Tensor& a, std::int64_t diagonal) {
  return triangle(a, "triu", [diagonal](const Tensor& offset) { return offset >= diagonal; });
}

Tensor flip(const Tensor& a, const std::vector<std::int64_t>& dims) {
  const detail::prof::Scope op_scope("flip", a);
  detail::impl_of(a, "flip");
  std::set<std::int64_t> seen;
  for (std::int64_t d : dims)
    if (!seen.insert(detail::wrap_dim(d, a.dim(), "flip")).second)
      throw ValueError("flip: dim " + std::to_string(d) +
                       " appears multiple times in the list of dims " + list_str(dims) +
                       " (as torch)");
  if (a.dim() == 0) return a.clone();
  Tensor out = a;
  const auto index = TensorOptions(a.device()).dtype(DType::int64);
  for (std::int64_t d : seen) {
    const std::int64_t n = a.shape()[static_cast<std::size_t>(d)];
    out = index_select(out, d, arange(n - 1, std::int64_t{-1}, std::int64_t{-1}, index));
  }
  return seen.empty() ? a.clone() : out;
}

Tensor repeat(const Tensor& a, const std::vector<std::int64_t>& repeats) {
  const detail::prof::Scope op_scope("repeat", a);
  detail::impl_of(a, "repeat");
  if (static_cast<std::int64_t>(repeats.size()) < a.dim())
    throw ShapeError("repeat: Number of dimensions of repeat dims (" + list_str(repeats) +
                     ") can not be smaller than number of dimensions of tensor " +
                     shape_str(a.shape()) + " (as torch)");
  // As torch, a negative repeat is refused where the result's size would be negative (not
  // against a dimension of size 0).
  const std::size_t pad = repeats.size() - a.shape().size();
  for (std::size_t i = 0; i < repeats.size(); ++i)
    if (repeats[i] * (i < pad ? 1 : a.shape()[i - pad]) < 0)
      throw ValueError("repeat: Trying to create tensor with negative dimension (repeats " +
                       list_str(repeats) + " of shape " + shape_str(a.shape()) + ", as torch)");
  // Leading 1s added, then dimension by dimension: viewed as [before, 1, s, after],
  // expanded to [before, r, s, after] and copied as [.., r s, ..] (4 dimensions at most
  // between, so any rank the tensors support).
  Shape shape(pad, 1);
  shape.insert(shape.end(), a.shape().begin(), a.shape().end());
  Tensor out = a.reshape(shape);
  bool copied = false;  // repeat always returns a new tensor, as torch's
  for (std::size_t i = 0; i < repeats.size(); ++i) {
    if (repeats[i] == 1) continue;
    copied = true;
    std::int64_t before = 1, after = 1;
    for (std::size_t j = 0; j < i; ++j) before *= shape[j];
    for (std::size_t j = i + 1; j < shape.size(); ++j) after *= shape[j];
    const std::int64_t s = shape[i];
    shape[i] *= repeats[i];
    out = out.reshape({before, 1, s, after})
              .expand({before, repeats[i], s, after})
              .contiguous()
              .reshape(shape);
  }
  return copied ? out : out.clone();
}

std::vector<Tensor> split(const Tensor& a, const std::vector<std::int64_t>& split_sizes,
                          std::int64_t dim) {
  detail::impl_of(a, "split");
  if (a.dim() == 0) throw ShapeError("split: cannot split a 0-d tensor (as torch)");
  const std::int64_t d = detail::wrap_dim(dim, a.dim(), "split");
  const std::int64_t size = a.shape()[static_cast<std::size_t>(d)];
  std::int64_t total = 0;
  for (std::int64_t s : split_sizes) {
    if (s < 0)
      throw ValueError(
          "split_with_sizes expects split_sizes have only non-negative entries, but got "
          "split_sizes=" +
          list_str(split_sizes) + " (as torch)");
    total += s;
  }
  if (total != size)
    throw ValueError("split_with_sizes expects split_sizes to sum exactly to " +
                     std::to_string(size) + " (input tensor's size at dimension " +
                     std::to_string(d) + "), but got split_sizes=" + list_str(split_sizes) +
                     " (as torch)");
  std::vector<Tensor> out;
  std::int64_t start = 0;
  for (std::int64_t s : split_sizes) {
    out.push_back(a.narrow(d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> split(const Tensor& a, std::int64_t split_size, std::int64_t dim) {
  detail::impl_of(a, "split");
  if (a.dim() == 0) throw ShapeError("split: cannot split a 0-d tensor (as torch)");
  const std::int64_t d = detail::wrap_dim(dim, a.dim(), "split");
  const std::int64_t size = a.shape()[static_cast<std::size_t>(d)];
  if (split_size < 0)
    throw ValueError("split expects split_size be non-negative, but got split_size=" +
                     std::to_string(split_size) + " (as torch)");
  if (split_size == 0 && size != 0)
    throw ValueError("split_size can only be 0 if dimension size is 0, but got dimension size of " +
                     std::to_string(size) + " (as torch)");
  if (size == 0) return {a.narrow(d, 0, 0)};
  std::vector<std::int64_t> sizes;
  for (std::int64_t start = 0; start < size; start += split_size)
    sizes.push_back(std::min(split_size, size - start));
  return split(a, sizes, d);
}

std::vector<Tensor> chunk(const Tensor& a, std::int64_t chunks, std::int64_t dim) {
  detail::impl_of(a, "chunk");
  if (a.dim() == 0) throw ShapeError("chunk: expects at least a 1-dimensional tensor (as torch)");
  if (chunks <= 0)
    throw ValueError("chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks) +
                     " (as torch)");
  const std::int64_t d = detail::wrap_dim(dim, a.dim(), "chunk");
  const std::int64_t size = a.shape()[static_cast<std::size_t>(d)];
  if (size == 0) {  // `chunks` empty pieces, as torch
    std::vector<std::int64_t> sizes;
    try {
      sizes.assign(static_cast<std::size_t>(chunks), 0);
    } catch (const std::exception&) {  // std::bad_alloc, std::length_error
      throw OutOfMemoryError("chunk: " + std::to_string(chunks) +
                             " empty pieces do not fit in host memory");
    }
    return split(a, sizes, d);
  }
  return split(a, (size - 1) / chunks + 1, d);  // ceil(size / chunks), without size + chunks - 1
}

std::vector<Tensor> unbind(const Tensor& a, std::int64_t dim) {
  detail::impl_of(a, "unbind");
  if (a.dim() == 0)
    throw ShapeError("unbind: dimension specified as 0 but tensor has no dimensions (as torch)");
  const std::int64_t d = detail::wrap_dim(dim, a.dim(), "unbind");
  std::vector<Tensor> out;
  for (std::int64_t i = 0; i < a.shape()[static_cast<std::size_t>(d)]; ++i)
    out.push_back(a.narrow(d, i, 1).squeeze(d));
  return out;
}

Tensor one_hot(const Tensor& indices, std::int64_t num_classes) {
  const detail::prof::Scope op_scope("one_hot", indices);
  detail::impl_of(indices, "one_hot");
  if (indices.dtype() != DType::int64)
    throw DTypeError("one_hot is only applicable to index tensor (int64), got " +
                     std::string(dtype_name(indices.dtype())) + " (as torch)");
  if (num_classes < -1)
    throw ValueError("one_hot: num_classes should be -1 or non-negative, got " +
                     std::to_string(num_classes));
  if (indices.numel() == 0) {
    if (num_classes == -1)
      throw ValueError(
          "one_hot: Can not infer total number of classes from empty tensor. (as torch)");
  } else {
    const auto [lowest, top] = detail::int_extrema(indices);
    if (lowest < 0) throw ValueError("one_hot: Class values must be non-negative. (as torch)");
    if (num_classes == -1 && top == std::numeric_limits<std::int64_t>::max())
      throw ValueError("one_hot: the largest class value " + std::to_string(top) +
                       " leaves no class count that int64 holds (torch: \"cannot be "
                       "represented as a SymInt\")");
    if (num_classes == -1)
      num_classes = top + 1;
    else if (top >= num_classes)
      throw ValueError("one_hot: Class values must be smaller than num_classes (" +
                       std::to_string(num_classes) + ", the largest is " + std::to_string(top) +
                       "). (as torch)");
  }
  const auto index = TensorOptions(indices.device()).dtype(DType::int64);
  return eq(indices.unsqueeze(indices.dim()), arange(num_classes, index)).to(DType::int64);
}

Tensor unflatten(const Tensor& a, std::int64_t dim, const std::vector<std::int64_t>& sizes) {
  const detail::prof::Scope op_scope("unflatten", a);
  detail::impl_of(a, "unflatten");
  const std::int64_t d = detail::wrap_dim(dim, a.dim(), "unflatten");
  if (sizes.empty()) throw ValueError("unflatten: sizes must be non-empty (as torch)");
  const std::int64_t size = a.size(d);
  std::int64_t known = 1, inferred = -1;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == -1) {
      if (inferred >= 0)
        throw ValueError("unflatten: only one dimension can be inferred, got sizes " +
                         list_str(sizes) + " (as torch)");
      inferred = static_cast<std::int64_t>(k);
    } else if (sizes[k] < 0) {
      throw ValueError("unflatten: invalid shape dimension " + std::to_string(sizes[k]) +
                       " in sizes " + list_str(sizes) + " (as torch)");
    } else if (__builtin_mul_overflow(known, sizes[k], &known)) {
      known = -1;  // beyond int64: matches no dimension
    }
  }
  std::vector<std::int64_t> resolved = sizes;
  if (inferred >= 0 && known > 0 && size % known == 0)
    resolved[static_cast<std::size_t>(inferred)] = size / known;
  else if (inferred >= 0 && known == 0 && size == 0)
    throw ShapeError("unflatten: cannot unflatten a dimension of 0 elements into " +
                     list_str(sizes) + ": the size -1 stands for could be any value (as torch)");
  else if (inferred >= 0 || known != size)
    throw ShapeError("unflatten: Provided sizes " + list_str(sizes) +
                     " don't multiply up to the size of dim " + std::to_string(dim) + " (" +
                     std::to_string(size) + ") in the input tensor of shape " +
                     shape_str(a.shape()) + " (as torch)");
  Shape shape(a.shape().begin(), a.shape().begin() + d);
  shape.insert(shape.end(), resolved.begin(), resolved.end());
  shape.insert(shape.end(), a.shape().begin() + d + 1, a.shape().end());
  return a.reshape(shape);
}

}  // namespace hetero
