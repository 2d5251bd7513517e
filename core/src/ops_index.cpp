// SPDX-License-Identifier: Apache-2.0
// Indexing along one dimension: gather, scatter_add, index_select and embedding, on the
// backends' gather and scatter_add kernels (interface minor 6). index_select and embedding
// are gathers with the index expanded along the other dimensions (a view with stride 0), so
// one kernel and one gradient (scatter_add) serve all of them. Indices are checked on the
// host before any kernel runs (one read of their minimum and maximum), so a kernel never
// sees one out of range: hetero raises IndexError where torch's cuda kernels assert.
#include <optional>
#include <string>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "backend_calls.hpp"
#include "gather_unchecked.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {
namespace {

using detail::shape_str;

// A tensor's view as the kernels take it: a 0-d tensor as the one element of a 1-d view
// (torch's gather and index_select treat a scalar so).
StridedView view_1d(const Tensor& t) {
  return t.dim() == 0 ? detail::view_of(t, {1}, {1}) : detail::view_of(t);
}
std::int64_t dims_1d(const Tensor& t) { return t.dim() == 0 ? 1 : t.dim(); }
std::int64_t size_1d(const Tensor& t, std::int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }

// IndexError unless every element of `index` (int64) lies in [0, size): one read of its
// minimum and maximum, which waits for the device.
void check_index_range(const std::string& op, const Tensor& index, std::int64_t dim,
                       std::int64_t size) {
  if (index.numel() == 0) return;
  const auto [lo, hi] = detail::int_extrema(index);
  if (lo >= 0 && hi < size) return;
  const std::int64_t bad = lo < 0 ? lo : hi;
  throw IndexError(op + ": index " + std::to_string(bad) + " is out of bounds for dimension " +
                   std::to_string(dim) + " with size " + std::to_string(size));
}

// `index` (int64, any strides, 0 allowed) as a tensor of `shape`: index_select's and
// embedding's 1-D index seen along dimension `d` of the result, stride 0 elsewhere.
Tensor expand_along(const Tensor& index, const Shape& shape, std::int64_t d) {
  std::vector<std::int64_t> strides(shape.size(), 0);
  if (index.dim() == 1) strides[static_cast<std::size_t>(d)] = index.strides()[0];
  const Tensor base = index.dim() == 0 ? index.reshape({1}) : index;
  return detail::strided_view(base, shape, strides, detail::view_of(base).offset);
}

// The kernel of gather: a new tensor of index's shape and src's dtype. Shapes and the index
// range were checked.
Tensor run_gather(const Tensor& src, std::int64_t d, const Tensor& index) {
  Tensor out = detail::new_tensor_like(index.shape(), src.dtype(), src);
  if (out.numel() == 0) return out;
  const StridedView o = view_1d(out);
  StridedView s = view_1d(src);
  for (int k = 0; k < o.ndim; ++k)
    if (k != d) s.shape[k] = o.shape[k];
  detail::calls::gather(detail::storage_of(out), s, view_1d(index), static_cast<int>(d), o);
  return out;
}

// The kernel of scatter_add: a copy of `self` with src's elements added at index.
Tensor run_scatter_add(const Tensor& self, std::int64_t d, const Tensor& index, const Tensor& src) {
  Tensor out = self.clone();
  detail::scatter_add_into(out, d, index, src);
  return out;
}

}  // namespace

void detail::scatter_add_into(Tensor& out, std::int64_t d, const Tensor& index, const Tensor& src) {
  ++detail::impl_of(out, "scatter_add").storage->version;  // Note [Saved tensor versions]
  if (index.numel() == 0) return;
  const StridedView x = view_1d(index);
  StridedView o = view_1d(out);
  StridedView s = view_1d(src);
  for (int k = 0; k < x.ndim; ++k) {
    s.shape[k] = x.shape[k];
    if (k != d) o.shape[k] = x.shape[k];
  }
  detail::calls::scatter_add(detail::storage_of(out), o, x, static_cast<int>(d), s);
}

namespace {

// gather's range check and gradient, shared with index_select (`op` and `node` name them;
// `indices` holds the values of `index`, which may be an expanded view of it).
// The gather itself, recorded as `node` (the range is checked, or known).
Tensor recorded_gather(const char* node, const Tensor& input, std::int64_t d, const Tensor& index) {
  const Tensor out = detail::untracked([&] { return run_gather(input, d, index); });
  return detail::record(node, out, {input}, [&] {
    return [shape = input.shape(), d, idx = detail::saved(index)](const Tensor& g) {
      return detail::formulas::gather(g, shape, d, idx);
    };
  });
}

Tensor gather_checked(const char* op, const char* node, const Tensor& input, std::int64_t d,
                      const Tensor& index, const Tensor& indices) {
  check_index_range(op, indices, d, size_1d(input, d));
  return recorded_gather(node, input, d, index);
}

void check_same_rank(const char* op, const Tensor& input, const Tensor& index) {
  if (dims_1d(input) != dims_1d(index))
    throw ShapeError(std::string(op) +
                     ": index tensor must have the same number of dimensions as input tensor: "
                     "input " +
                     shape_str(input.shape()) + ", index " + shape_str(index.shape()) +
                     " (as torch)");
}

// The prelude of index_select and embedding: both defined, on one device, an int32 or
// int64 index (as torch).
void check_integer_index(const char* op, const Tensor& input, const Tensor& index) {
  detail::impl_of(input, op);
  detail::impl_of(index, op);
  detail::check_same_device(op, {&input, &index});
  if (index.dtype() != DType::int64 && index.dtype() != DType::int32)
    throw DTypeError(std::string(op) + ": expected an index of dtype int32 or int64, got " +
                     std::string(dtype_name(index.dtype())) + " (as torch)");
}

void check_int64_index(const char* op, const Tensor& index) {
  if (index.dtype() != DType::int64)
    throw DTypeError(std::string(op) + ": expected dtype int64 for index, got " +
                     std::string(dtype_name(index.dtype())) + " (as torch)");
}

}  // namespace

Tensor gather(const Tensor& input, std::int64_t dim, const Tensor& index) {
  const detail::prof::Scope op_scope("gather", input);
  detail::impl_of(input, "gather");
  detail::impl_of(index, "gather");
  detail::check_same_device("gather", {&input, &index});
  const std::int64_t d = detail::wrap_dim(dim, dims_1d(input), "gather");
  // As torch: an empty index skips the dtype and size checks (an empty result).
  if (index.numel() == 0) return gather_checked("gather", "GatherBackward", input, d, index, index);
  check_int64_index("gather", index);
  check_same_rank("gather", input, index);
  for (std::int64_t k = 0; k < dims_1d(index); ++k)
    if (k != d && size_1d(index, k) > size_1d(input, k))
      throw ShapeError("gather: size does not match at dimension " + std::to_string(k) +
                       ": expected index " + shape_str(index.shape()) +
                       " to be smaller than input " + shape_str(input.shape()) +
                       " apart from dimension " + std::to_string(d) + " (as torch)");
  return gather_checked("gather", "GatherBackward", input, d, index, index);
}

Tensor detail::gather_unchecked(const Tensor& input, std::int64_t d, const Tensor& index) {
  const detail::prof::Scope op_scope("gather", input);
  return recorded_gather("GatherBackward", input, d, index);
}

Tensor scatter_add(const Tensor& input, std::int64_t dim, const Tensor& index, const Tensor& src) {
  const detail::prof::Scope op_scope("scatter_add", input);
  detail::impl_of(input, "scatter_add");
  detail::impl_of(index, "scatter_add");
  detail::impl_of(src, "scatter_add");
  detail::check_same_device("scatter_add", {&input, &index, &src});
  const std::int64_t d = detail::wrap_dim(dim, dims_1d(input), "scatter_add");
  if (index.numel() == 0 && src.dtype() == input.dtype()) {  // as torch: no other check
    return detail::record("ScatterAddBackward", detail::untracked([&] { return input.clone(); }),
                          {input, src}, [&] {
                            return [shape = src.shape()](const Tensor& g) {
                              return detail::formulas::scatter_add_nothing(g, shape);
                            };
                          });
  }
  check_int64_index("scatter_add", index);
  if (src.dtype() != input.dtype())
    throw DTypeError("scatter_add: expected src's dtype to equal input's: input " +
                     std::string(dtype_name(input.dtype())) + ", src " +
                     std::string(dtype_name(src.dtype())) + " (as torch)");
  check_same_rank("scatter_add", input, index);
  check_same_rank("scatter_add", src, index);
  for (std::int64_t k = 0; k < dims_1d(index); ++k)
    if ((k != d && size_1d(index, k) > size_1d(input, k)) || size_1d(index, k) > size_1d(src, k))
      throw ShapeError("scatter_add: expected index " + shape_str(index.shape()) +
                       " to be smaller than input " + shape_str(input.shape()) +
                       " apart from dimension " + std::to_string(d) +
                       " and to be smaller than src " + shape_str(src.shape()) + " (as torch)");
  check_index_range("scatter_add", index, d, size_1d(input, d));
  const Tensor out = detail::untracked([&] { return run_scatter_add(input, d, index, src); });
  return detail::record("ScatterAddBackward", out, {input, src}, [&] {
    return [src_shape = src.shape(), d, idx = detail::saved(index)](const Tensor& g) {
      return detail::formulas::scatter_add(g, src_shape, d, idx);
    };
  });
}

Tensor index_select(const Tensor& input, std::int64_t dim, const Tensor& index) {
  const detail::prof::Scope op_scope("index_select", input);
  check_integer_index("index_select", input, index);
  if (index.dim() > 1)
    throw IndexError("index_select: index is supposed to be a vector, got shape " +
                     shape_str(index.shape()) + " (as torch)");
  const std::int64_t d = detail::wrap_dim(dim, dims_1d(input), "index_select");
  const Tensor idx = index.to(DType::int64);
  // A scalar input takes exactly one index, as torch 2's "Index to scalar can have only 1
  // value" (torch 1.13 writes the extra ones beyond its 0-d result: docs/semantics.md).
  if (input.dim() == 0 && idx.numel() != 1)
    throw IndexError("index_select: index to a 0-d input can have only 1 value, got " +
                     std::to_string(idx.numel()) + " (as torch 2)");
  Shape shape = input.dim() == 0 ? Shape{1} : input.shape();
  shape[static_cast<std::size_t>(d)] = idx.numel();
  const Tensor expanded = expand_along(idx, shape, d);
  const Tensor out = gather_checked("index_select", "IndexSelectBackward", input, d, expanded, idx);
  return input.dim() == 0 ? out.reshape({}) : out;
}

Tensor embedding(const Tensor& indices, const Tensor& weight,
                 std::optional<std::int64_t> padding_idx) {
  const detail::prof::Scope op_scope("embedding", weight);
  check_integer_index("embedding", weight, indices);
  if (weight.dim() != 2)
    throw ShapeError("embedding: weight must be 2-D [num_embeddings, embedding_dim], got " +
                     shape_str(weight.shape()));
  const std::int64_t rows = weight.size(0), width = weight.size(1);
  if (padding_idx && (*padding_idx < -rows || *padding_idx >= rows))
    throw ValueError("embedding: padding_idx " + std::to_string(*padding_idx) +
                     " must be within num_embeddings " + std::to_string(rows) + " (as torch)");
  const Tensor flat = indices.to(DType::int64).reshape({indices.numel()});
  Shape out_shape = indices.shape();
  out_shape.push_back(width);
  const Tensor expanded = expand_along(flat, {flat.numel(), width}, 0);
  check_index_range("embedding", flat, 0, rows);
  const Tensor out =
      detail::untracked([&] { return run_gather(weight, 0, expanded).view(out_shape); });
  const std::int64_t pad = padding_idx ? (*padding_idx + rows) % rows : -1;
  return detail::record("EmbeddingBackward", out, {weight}, [&] {
    return [shape = weight.shape(), idx = detail::saved(expanded), pad](const Tensor& g) {
      return detail::formulas::embedding(g, shape, idx, pad);
    };
  });
}

}  // namespace hetero
