// SPDX-License-Identifier: Apache-2.0
// The in-place members of Tensor: add_, sub_, mul_, div_ (and add_/sub_ with alpha), fill_,
// zero_, the unary neg_ ... relu_, clamp_, pow_ and masked_fill_ (uniform_ and normal_ are
// in tensor_random.cpp).
//
// Note [In-place ops]: as torch's, an in-place op writes into the tensor's own elements and
// bumps its version (Note [Saved tensor versions]), so a backward that saved the old values
// raises instead of reading the new ones. Under NoGradGuard, or when nothing involved requires
// grad, it is the kernel writing straight into the destination (the out= path of ops_out.cpp).
// With grad mode on and something requiring grad, it is the op out of place followed by copy_
// into the destination: copy_ already rebases a tensor's history (CopyBackwards) and, for a
// view, its base's (CopySlices), refuses leaves that require grad and views of them, and
// bumps the version, so the gradients are torch's exactly; the price is one temporary and one
// copy, and a grad_fn named after the copy instead of the op.
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>
#include <hetero/tensor.hpp>

#include "binary_into_existing.hpp"
#include "op_helpers.hpp"
#include "promotion.hpp"
#include "storage.hpp"
#include "tensor_impl.hpp"

namespace hetero {
namespace {

Tensor& in_place(BinaryOp op, Tensor& self, const Tensor& other) {
  return detail::binary_into_existing(op, self, self, other, /*in_place=*/true);
}

// The number as ops.hpp's `x + 2` and `x + 2.5` wrap it; div_ divides by a floating value,
// as `x / 2` does.
Tensor& in_place(BinaryOp op, Tensor& self, Number other) {
  const std::string name = std::string(op_name(op)) + "_";
  if (!self.defined()) throw Error(name + ": self is an undefined tensor");
  const Tensor operand = other.is_integral() && op != BinaryOp::div
                             ? detail::scalar_operand(self, other.integral())
                             : detail::scalar_operand(self, other.floating());
  return in_place(op, self, operand);
}

// self += alpha * other (or -=): the product in the promoted dtype, float32 for the 16-bit
// ones (torch's opmath), then in_place(op) as add_(other); alpha 1 is add_(other) itself.
Tensor& in_place_scaled(BinaryOp op, Tensor& self, const Tensor& other, Number alpha) {
  const std::string name = std::string(op_name(op)) + "_";
  if (!self.defined()) throw Error(name + ": self is an undefined tensor");
  detail::impl_of(other, name.c_str());
  if (alpha.is_integral() && alpha.integral() == 1) return in_place(op, self, other);
  const DType rt =
      detail::result_type(self.dtype(), self.dim() == 0, other.dtype(), other.dim() == 0);
  if (rt == DType::bool_)
    throw DTypeError(name + ": alpha other than 1 with bool tensors (use logical ops)");
  if (!is_floating_point(rt) && !alpha.is_integral())
    throw DTypeError(name +
                     ": for integral input tensors, argument alpha must not be a floating point "
                     "number (as torch)");
  const bool half = rt == DType::float16 || rt == DType::bfloat16;
  const Tensor wide = other.to(half ? DType::float32 : rt);
  const Tensor product = alpha.is_integral() ? wide * alpha.integral() : wide * alpha.floating();
  return in_place(op, self, product);
}

// f(self) stored into self (Note [In-place ops]): with grad, f runs on a copy, so that the
// values f saves for its backward are not the ones the write changes; copy_ records the write.
template <class F>
Tensor& apply_in_place(const char* name, Tensor& self, F f) {
  if (!self.defined()) throw Error(std::string(name) + ": self is an undefined tensor");
  detail::check_no_internal_overlap(name, detail::impl_of(self, name), "");
  const bool grad = is_grad_enabled() && self.requires_grad();
  if (grad) detail::check_not_grad_leaf(name, self);
  const Tensor r = f(grad ? self.clone() : self);
  if (r.shape() != self.shape())  // an operand (pow_'s exponent, a mask) broadcast it larger
    throw ShapeError(std::string(name) + ": output with shape " + detail::shape_str(self.shape()) +
                     " doesn't match the broadcast shape " + detail::shape_str(r.shape()) +
                     " (as torch)");
  detail::check_result_cast(name, r.dtype(), self.dtype());
  self.copy_(r);
  return self;
}

// torch's checked conversion of fill_'s value (c10::checked_convert): as full()'s, except
// that an integral value is exact (every int64 fits int64) and uint8 also takes one down to
// -255, wrapped (c10's rule for unsigned types: -1 is 255).
void check_fill_value(Number value, DType t) {
  if (value.is_integral()) {
    const std::int64_t v = value.integral();
    if (t == DType::int64 || (t == DType::uint8 && v >= -255 && v < 0)) return;
  }
  detail::check_value_fits("fill_", value.floating(), t);
}

}  // namespace

Tensor& Tensor::add_(const Tensor& other) { return in_place(BinaryOp::add, *this, other); }
Tensor& Tensor::sub_(const Tensor& other) { return in_place(BinaryOp::sub, *this, other); }
Tensor& Tensor::mul_(const Tensor& other) { return in_place(BinaryOp::mul, *this, other); }
Tensor& Tensor::div_(const Tensor& other) { return in_place(BinaryOp::div, *this, other); }
Tensor& Tensor::add_(Number other) { return in_place(BinaryOp::add, *this, other); }
Tensor& Tensor::sub_(Number other) { return in_place(BinaryOp::sub, *this, other); }
Tensor& Tensor::mul_(Number other) { return in_place(BinaryOp::mul, *this, other); }
Tensor& Tensor::div_(Number other) { return in_place(BinaryOp::div, *this, other); }

namespace {

// fill_ and zero_: every element set to `value`; errors name `op`, the method called.
Tensor& fill_named(Tensor& self, const char* op, Number value) {
  if (!self.defined()) throw Error(std::string(op) + ": self is an undefined tensor");
  const auto& i = detail::impl_of(self, op);
  check_fill_value(value, i.dtype);
  detail::check_no_internal_overlap(op, i, "");
  if (is_grad_enabled() && self.requires_grad()) {  // Note [In-place ops]
    detail::check_not_grad_leaf(op, self);
    Tensor v = empty({}, TensorOptions(self.device()).dtype(self.dtype()));
    value.is_integral() ? detail::fill(v, value.integral()) : detail::fill(v, value.floating());
    self.copy_(v.expand(self.shape()));
    return self;
  }
  ++i.storage->version;  // Note [Saved tensor versions]
  value.is_integral() ? detail::fill(self, value.integral()) : detail::fill(self, value.floating());
  return self;
}

}  // namespace

Tensor& Tensor::fill_(Number value) { return fill_named(*this, "fill_", value); }

Tensor& Tensor::zero_() { return fill_named(*this, "zero_", 0); }

Tensor& Tensor::add_(const Tensor& other, Number alpha) {
  return in_place_scaled(BinaryOp::add, *this, other, alpha);
}
Tensor& Tensor::sub_(const Tensor& other, Number alpha) {
  return in_place_scaled(BinaryOp::sub, *this, other, alpha);
}

Tensor& Tensor::neg_() {
  return apply_in_place("neg_", *this, [](const Tensor& x) { return hetero::neg(x); });
}
Tensor& Tensor::abs_() {
  return apply_in_place("abs_", *this, [](const Tensor& x) { return hetero::abs(x); });
}
Tensor& Tensor::exp_() {
  return apply_in_place("exp_", *this, [](const Tensor& x) { return hetero::exp(x); });
}
Tensor& Tensor::log_() {
  return apply_in_place("log_", *this, [](const Tensor& x) { return hetero::log(x); });
}
Tensor& Tensor::sqrt_() {
  return apply_in_place("sqrt_", *this, [](const Tensor& x) { return hetero::sqrt(x); });
}
Tensor& Tensor::sigmoid_() {
  return apply_in_place("sigmoid_", *this, [](const Tensor& x) { return hetero::sigmoid(x); });
}
Tensor& Tensor::tanh_() {
  return apply_in_place("tanh_", *this, [](const Tensor& x) { return hetero::tanh(x); });
}
Tensor& Tensor::relu_() {
  return apply_in_place("relu_", *this, [](const Tensor& x) { return hetero::relu(x); });
}
Tensor& Tensor::clamp_(std::optional<Number> min, std::optional<Number> max) {
  return apply_in_place("clamp_", *this,
                        [&](const Tensor& x) { return hetero::clamp(x, min, max); });
}

Tensor& Tensor::pow_(Number exponent) {
  return apply_in_place("pow_", *this, [&](const Tensor& x) {
    return exponent.is_integral() ? hetero::pow(x, exponent.integral())
                                  : hetero::pow(x, exponent.floating());
  });
}
Tensor& Tensor::pow_(const Tensor& exponent) {
  return apply_in_place("pow_", *this, [&](const Tensor& x) { return hetero::pow(x, exponent); });
}
Tensor& Tensor::masked_fill_(const Tensor& mask, double value) {
  return apply_in_place("masked_fill_", *this,
                        [&](const Tensor& x) { return hetero::masked_fill(x, mask, value); });
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  return apply_in_place("masked_fill_", *this,
                        [&](const Tensor& x) { return hetero::masked_fill(x, mask, value); });
}

}  // namespace hetero
