// SPDX-License-Identifier: Apache-2.0
// add_out, sub_out, mul_out and div_out (ops_out.hpp) and the in-place add_, sub_, mul_ and
// div_ (tensor_inplace.cpp): torch's out= and in-place rules around the element-wise
// kernels. One pass into out's own elements when a, b and out share a dtype; otherwise the
// public op, then one converting copy into out.
#include <hetero/ops_out.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "binary_into_existing.hpp"
#include "op_helpers.hpp"
#include "storage.hpp"
#include "tensor_impl.hpp"

namespace hetero {
namespace {

// torch's canCast: no floating result into an integer dtype, nothing but bool into bool.
bool can_cast(DType from, DType to) {
  if (is_floating_point(from) && !is_floating_point(to)) return false;
  if (from != DType::bool_ && to == DType::bool_) return false;
  return true;
}

// torch's is_non_overlapping_and_dense: the dimensions of more than one element, ordered by
// stride, tile one block of numel() elements exactly (a contiguous tensor or a permutation of
// one, such as a transpose).
bool dense(const detail::TensorImpl& t) {
  std::vector<std::pair<std::int64_t, std::int64_t>> dims;  // (stride, size)
  for (std::size_t d = 0; d < t.shape.size(); ++d)
    if (t.shape[d] > 1) dims.emplace_back(t.strides[d], t.shape[d]);
  std::sort(dims.begin(), dims.end());
  std::int64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

enum class Overlap { none, full, unknown };

// How input `in` shares memory with `out`: none, full (the same elements in the same
// order: an element-wise kernel reads each one before writing it), or unknown (strided
// views of one storage: computed through a temporary). ValueError for the partial overlap
// of dense tensors that torch refuses.
Overlap overlap(const char* name, const Tensor& in, const Tensor& out) {
  const auto& i = detail::impl_of(in, name);
  const auto& o = detail::impl_of(out, name);
  if (i.storage != o.storage || in.numel() == 0) return Overlap::none;
  if (i.offset == o.offset && i.shape == o.shape && i.strides == o.strides) return Overlap::full;
  const auto [ilo, ihi] = detail::element_span(i);
  const auto [olo, ohi] = detail::element_span(o);
  if (ihi < olo || ohi < ilo) return Overlap::none;
  if (dense(i) && dense(o))
    throw ValueError(std::string(name) +
                     ": unsupported operation: some elements of the input tensor and the "
                     "written-to tensor (out) refer to a single memory location (as torch); "
                     "clone() the input first");
  return Overlap::unknown;
}

Tensor compute(BinaryOp op, const Tensor& a, const Tensor& b) {
  switch (op) {
    case BinaryOp::add:
      return add(a, b);
    case BinaryOp::sub:
      return sub(a, b);
    case BinaryOp::mul:
      return mul(a, b);
    default:
      return div(a, b);
  }
}

}  // namespace

namespace detail {

void check_result_cast(const std::string& name, DType result, DType out) {
  if (!can_cast(result, out))
    throw DTypeError(name + ": result type " + std::string(dtype_name(result)) +
                     " can't be cast to the desired output type " + std::string(dtype_name(out)) +
                     " (as torch)");
}

void check_not_grad_leaf(const std::string& name, const Tensor& t) {
  if (!is_grad_enabled() || !t.requires_grad()) return;
  if (t.is_leaf())
    throw Error(name +
                ": a leaf tensor that requires grad is being used in an in-place operation (as "
                "torch); write into it under NoGradGuard, as an optimiser step does");
  // A view of such a leaf: refused by the copy_ that records the write, named here by the
  // op the caller used.
  const auto& base = detail::impl_of(t, name.c_str()).base;
  if (base && Tensor(base).requires_grad() && Tensor(base).is_leaf())
    throw Error(name +
                ": a view of a leaf tensor that requires grad is being used in an in-place "
                "operation (as torch); write into it under NoGradGuard, as an optimiser step "
                "does");
}

Tensor& binary_into_existing(BinaryOp op, Tensor& out, const Tensor& a, const Tensor& b,
                             bool in_place) {
  const std::string name = std::string(op_name(op)) + (in_place ? "_" : "_out");
  if (!out.defined())
    throw Error(name + ": " + (in_place ? "self" : "out") + " is an undefined tensor");
  detail::impl_of(a, name.c_str());
  detail::impl_of(b, name.c_str());
  detail::check_same_device(name.c_str(), {&a, &b, &out});
  const bool grad =
      is_grad_enabled() && (a.requires_grad() || b.requires_grad() || out.requires_grad());
  if (grad && !in_place)
    throw Error(name +
                ": functions with out=... arguments don't support automatic differentiation, "
                "but one of the arguments requires grad (as torch); call it under NoGradGuard "
                "or pass detach()ed tensors");
  if (grad) detail::check_not_grad_leaf(name, out);
  const Shape shape = detail::broadcast_shapes(name.c_str(), a.shape(), b.shape());
  if (out.shape() != shape) {
    if (in_place)
      throw ShapeError(name + ": output with shape " + detail::shape_str(out.shape()) +
                       " doesn't match the broadcast shape " + detail::shape_str(shape) +
                       " (as torch)");
    if (out.numel() != 0)
      throw ShapeError(name + ": out has shape " + detail::shape_str(out.shape()) +
                       " but the result has shape " + detail::shape_str(shape) +
                       " (torch resizes a non-empty out with a deprecation warning; hetero "
                       "resizes only an out without elements)");
    out.set_data(empty(shape, TensorOptions(out.device()).dtype(out.dtype())));
  }
  detail::check_no_internal_overlap(name, detail::impl_of(out, name.c_str()), "(out)");
  bool through_temporary = false;
  for (const Tensor* in : {&a, &b})
    through_temporary = overlap(name.c_str(), *in, out) == Overlap::unknown || through_temporary;
  const DType t = out.dtype();
  const auto check_cast = [&](DType from) { detail::check_result_cast(name, from, t); };
  if (grad) {
    // Note [In-place ops]: the op out of place with its usual history, then copy_ into
    // out, which records the write (CopyBackwards, or CopySlices on a view's base) and
    // bumps out's version. mul and div save their operands for backward: an operand that
    // shares out's memory is saved as a copy, so that the write does not invalidate it
    // (torch saves the original self the same way where the formula needs it).
    const auto saved = [&](const Tensor& in) {
      const bool saves = op == BinaryOp::mul || op == BinaryOp::div;
      return saves && in.shares_storage(out) ? in.clone() : in;
    };
    const Tensor r = compute(op, saved(a), saved(b));
    check_cast(r.dtype());
    out.copy_(r);
    return out;
  }
  NoGradGuard no_grad;
  const bool one_pass = !through_temporary && a.dtype() == t && b.dtype() == t &&
                        t != DType::bool_ && (op != BinaryOp::div || is_floating_point(t));
  if (one_pass) {
    detail::binary_into(op, a, b, out);
    return out;
  }
  const Tensor r = compute(op, a, b);
  check_cast(r.dtype());
  out.copy_(r);
  return out;
}

}  // namespace detail

namespace {

Tensor& binary_out(BinaryOp op, Tensor& out, const Tensor& a, const Tensor& b) {
  return detail::binary_into_existing(op, out, a, b, /*in_place=*/false);
}

// The scalar forms: `s` wrapped as ops.hpp's `a * s` wraps it (after checking that a is
// defined, which the wrapping needs).
Tensor& scalar_out(BinaryOp op, Tensor& out, const Tensor& a, double s) {
  detail::impl_of(a, (std::string(op_name(op)) + "_out").c_str());
  return binary_out(op, out, a, detail::scalar_operand(a, s));
}

}  // namespace

Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return binary_out(BinaryOp::add, out, a, b);
}
Tensor& sub_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return binary_out(BinaryOp::sub, out, a, b);
}
Tensor& mul_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return binary_out(BinaryOp::mul, out, a, b);
}
Tensor& div_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return binary_out(BinaryOp::div, out, a, b);
}
Tensor& add_out(Tensor& out, const Tensor& a, double b) {
  return scalar_out(BinaryOp::add, out, a, b);
}
Tensor& sub_out(Tensor& out, const Tensor& a, double b) {
  return scalar_out(BinaryOp::sub, out, a, b);
}
Tensor& mul_out(Tensor& out, const Tensor& a, double b) {
  return scalar_out(BinaryOp::mul, out, a, b);
}
Tensor& div_out(Tensor& out, const Tensor& a, double b) {
  return scalar_out(BinaryOp::div, out, a, b);
}

}  // namespace hetero
