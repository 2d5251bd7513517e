// SPDX-License-Identifier: Apache-2.0
// Element-wise operations: promotion, NumPy broadcasting, then one checked backend call
// (backend_calls.hpp). The public unary and binary functions and their autograd nodes are
// generated from the op tables (Note [Op tables], <hetero/sdk/op_table.hpp>): a row's
// backward column is the gradient expression, in g, x, y (unary) or g, a, b (binary).
#include <array>
#include <cctype>
#include <cmath>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/internal_assert.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "backend_calls.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "promotion.hpp"

namespace hetero {
namespace {

// The dtype a binary op's result has (torch.result_type: a 0-d operand counts only when
// its category is higher) and the one it computes in: a row of dtypes `floating` (div: true
// division) computes integer and bool operands in float32, as torch.div and torch.atan2,
// and bool arithmetic computes in int64 and converts back (as torch: b + b is logical or,
// b * b logical and). Subtracting bools raises, as torch.
DType result_dtype(BinaryOp op, const Tensor& a, const Tensor& b) {
  const DType t = detail::result_type(a.dtype(), a.dim() == 0, b.dtype(), b.dim() == 0);
  if (op_dtypes(op) == DTypeClass::floating && !is_floating_point(t)) return DType::float32;
  if (op == BinaryOp::sub && (a.dtype() == DType::bool_ || b.dtype() == DType::bool_))
    throw DTypeError(
        "sub: subtraction, the `-` operator, with a bool tensor is not supported (as torch); "
        "convert the bool tensor first, e.g. x.to(DType::int64)");
  if (op == BinaryOp::pow && t == DType::bool_)
    throw DTypeError(
        "pow: bool tensors take no power (torch raises too); convert first, e.g. "
        "x.to(DType::int64)");
  if ((op == BinaryOp::fmod || op == BinaryOp::remainder) && t == DType::bool_)
    throw DTypeError(std::string(op_name(op)) +
                     ": not defined for two bool tensors (torch raises too); convert first, "
                     "e.g. x.to(DType::int64)");
  return t;
}

// Strides of `t` viewed with shape `out` (broadcast dimensions get stride 0).
std::vector<std::int64_t> broadcast_strides(const Tensor& t, const Shape& out) {
  const auto& s = t.shape();
  const auto& st = t.strides();
  std::vector<std::int64_t> r(out.size(), 0);
  const std::size_t lead = out.size() - s.size();
  for (std::size_t i = 0; i < s.size(); ++i) r[lead + i] = s[i] == 1 ? 0 : st[i];
  return r;
}

// torch's cpu kernels raise for an integer fmod or remainder by 0 (the cuda ones leave the
// result undefined): so does hetero, on every backend, by reading whether b has a 0 (one
// host sync) before any kernel. The kernels' integer rules give 0 there without a trap.
void check_integer_divisor(const char* name, const Tensor& b) {
  if (b.numel() == 0 || eq(b, detail::scalar_operand(b, 0.0)).sum().item<std::int64_t>() == 0)
    return;
  throw ValueError(std::string(name) +
                   ": ZeroDivisionError: an integer divisor is 0 (as torch); convert to a "
                   "floating dtype for NaN instead, e.g. b.to(DType::float32)");
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const char* name = op_name(op).data();  // a string literal of the table
  const detail::prof::Scope op_scope(name, a);
  detail::check_same_device(name, {&a, &b});
  const DType result = result_dtype(op, a, b);
  if (result == DType::bool_) return binary(op, a.to(DType::int64), b.to(DType::int64)).to(result);
  const DType t = result;
  const bool same_shape = a.shape() == b.shape();
  const Shape shape = same_shape ? a.shape() : detail::broadcast_shapes(name, a.shape(), b.shape());
  // Operands already of dtype t are used as they are (no Tensor copies: reference counts
  // are atomic, and this is the path of every small op).
  Tensor a_cast, b_cast;
  const Tensor& a2 = a.dtype() == t ? a : (a_cast = a.to(t));
  const Tensor& b2 = b.dtype() == t ? b : (b_cast = b.to(t));
  // Only where an element is divided: an empty result divides nothing (as torch, whose
  // kernel never sees the divisor then), and a shape mismatch is reported first. The divisor
  // as the kernel sees it, in t: a 0-d int32 INT_MIN beside uint8 is 0 (as torch's check).
  if ((op == BinaryOp::fmod || op == BinaryOp::remainder) && is_integral(t) &&
      detail::checked_numel(shape) != 0)
    check_integer_divisor(name, b2);
  if (same_shape) {  // no broadcasting: the operands' own strides
    Tensor out = detail::new_tensor_like(a.shape(), t, a);
    if (out.numel() == 0) return out;
    detail::calls::binary(detail::storage_of(out), op, detail::view_of(a2), detail::view_of(b2),
                          detail::view_of(out));
    return out;
  }
  Tensor out = detail::new_tensor_like(shape, t, a);
  if (out.numel() == 0) return out;
  detail::calls::binary(
      detail::storage_of(out), op, detail::view_of(a2, shape, broadcast_strides(a2, shape)),
      detail::view_of(b2, shape, broadcast_strides(b2, shape)), detail::view_of(out));
  return out;
}

}  // namespace

void detail::binary_into(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  const char* name = op_name(op).data();
  const detail::prof::Scope op_scope(name, a);
  const auto& o = detail::impl_of(out, name);
  HETERO_INTERNAL_ASSERT(a.device() == out.device() && b.device() == out.device() &&
                             result_dtype(op, a, b) == out.dtype() && a.dtype() == out.dtype() &&
                             b.dtype() == out.dtype() &&
                             detail::broadcast_shapes(name, a.shape(), b.shape()) == out.shape(),
                         std::string("binary_into: ") + name + " does not fit its destination");
  ++o.storage->version;  // Note [Saved tensor versions]
  if (out.numel() == 0) return;
  const Shape& shape = out.shape();
  detail::calls::binary(
      detail::storage_of(out), op, detail::view_of(a, shape, broadcast_strides(a, shape)),
      detail::view_of(b, shape, broadcast_strides(b, shape)), detail::view_of(out));
}

namespace {

// A comparison row: the kernel writes 1 or 0 in the promoted dtype, returned as bool (two
// passes; the tables have no bool-output binary family). No gradient: bool results take none.
Tensor compare(BinaryOp op, const Tensor& a, const Tensor& b) {
  const detail::prof::Scope op_scope(op_name(op), a);
  return detail::untracked([&] {
    Tensor r = binary(op, a, b);
    return r.dtype() == DType::bool_ ? r : cast(r, DType::bool_);
  });
}

// A ternary row (where): c, x and y broadcast together, all converted to the dtype `t`.
Tensor ternary(TernaryOp op, const Tensor& c, const Tensor& x, const Tensor& y, DType t) {
  const char* name = op_name(op).data();
  const detail::prof::Scope op_scope(name, x);
  detail::check_same_device(name, {&c, &x, &y});
  const Shape shape = detail::broadcast_shapes(
      name, detail::broadcast_shapes(name, c.shape(), x.shape()), y.shape());
  Tensor out = detail::new_tensor_like(shape, t, x);
  if (out.numel() == 0) return out;
  const Tensor c2 = c.to(t), x2 = x.to(t), y2 = y.to(t);
  detail::calls::ternary(
      detail::storage_of(out), op, detail::view_of(c2, shape, broadcast_strides(c2, shape)),
      detail::view_of(x2, shape, broadcast_strides(x2, shape)),
      detail::view_of(y2, shape, broadcast_strides(y2, shape)), detail::view_of(out));
  return out;
}

// Integer and bool input of a `floating` row computes in float32 (as torch.exp); a
// `numeric` row raises for bool, as torch (-b, abs(b), relu(b)).
Tensor unary(UnaryOp op, const Tensor& a) {
  const char* name = op_name(op).data();
  const detail::prof::Scope op_scope(name, a);
  detail::impl_of(a, name);
  DType t = a.dtype();
  if (op_dtypes(op) == DTypeClass::floating && !is_floating_point(t)) t = DType::float32;
  if (t == DType::bool_)
    throw DTypeError(std::string(name) +
                     ": not defined for a bool tensor (as torch); for a "
                     "mask use logical operations, or convert first, e.g. x.to(DType::int64)");
  Tensor cast;
  const Tensor& in = a.dtype() == t ? a : (cast = a.to(t));
  Tensor out = detail::new_tensor_like(a.shape(), t, a);
  if (out.numel() == 0) return out;
  detail::calls::unary(detail::storage_of(out), op, detail::view_of(in), detail::view_of(out));
  return out;
}

// "ExpBackward" for exp, "AddBackward" for add: the node names (grad_fn) of the rows.
template <std::size_t N>
std::array<std::string, N> backward_names(const std::string_view (&names)[N]) {
  std::array<std::string, N> out;
  for (std::size_t i = 0; i < N; ++i) {
    std::string n(names[i]);
    n[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(n[0])));
    out[i] = n + "Backward";
  }
  return out;
}
const char* backward_name(UnaryOp op) {
  static const auto names = backward_names(op_table_detail::kUnaryNames);
  return names[static_cast<std::size_t>(op)].c_str();
}
const char* backward_name(BinaryOp op) {
  static const auto names = backward_names(op_table_detail::kBinaryNames);
  return names[static_cast<std::size_t>(op)].c_str();
}

// Helpers of the tables' backward columns.
using detail::unbroadcast;
// The gradient of maximum(a, b) (minimum when !is_max) that goes to a, selected as torch
// 1.13's derivatives.yaml: where(a == b, g / 2, g).masked_fill_(a loses, 0). Selected, not
// multiplied by a mask, so an inf or NaN g stays out of the loser's gradient; where either
// is NaN neither loses, and both get g.
Tensor extremum_gradient(const Tensor& g, const Tensor& a, const Tensor& b, bool is_max) {
  return where(is_max ? lt(a, b) : gt(a, b), 0.0, where(eq(a, b), g * 0.5, g));
}
// relu's gradient, as torch's threshold_backward(g, y, 0): 0 where y <= 0 (selected), else g.
// Two passes over y: the comparison row's 1 or 0 in y's dtype is where's condition as it is
// (every backend's where tests its condition against 0), without le()'s cast to bool and
// where()'s cast back.
Tensor relu_gradient(const Tensor& g, const Tensor& y) {
  const Tensor zero = detail::scalar_operand(g, 0.0);
  return ternary(TernaryOp::where, binary(BinaryOp::le, y, zero), zero, g, g.dtype());
}

// pow's gradients, as torch's pow_backward_self / pow_backward_exponent: the formula, with 0
// where y == 0 (for the base) and where x == 0 and y >= 0 (for the exponent), where the
// formula would give 0 * inf or NaN.
Tensor pow_grad_base(const Tensor& g, const Tensor& a, const Tensor& b) {
  return where(eq(b, 0.0), 0.0, g * b * pow(a, b - 1.0));
}
Tensor pow_grad_exponent(const Tensor& g, const Tensor& a, const Tensor& b) {
  return where(logical_and(eq(a, 0.0), ge(b, 0.0)), 0.0, g * pow(a, b) * log(a));
}

// a // b on floating operands, as torch.div(a, b, rounding_mode="floor"), which remainder's
// gradient to b takes (derivatives.yaml: -grad * self.div(other, rounding_mode="floor")).
// torch computes it as c10::div_floor_floating, not floor(a / b): the quotient of a - fmod(a,
// b), stepped down by one where fmod has the other sign than b, rounded to the nearest
// integer; a / b where b == 0; a zero with the sign of a / b where the quotient is 0. It
// differs from floor(a / b) where a / b rounds up to an integer (1 // 0.1 is 9, floor(1 / 0.1)
// is 10) and where a is infinite (NaN, not +-inf).
Tensor floor_division(const Tensor& a, const Tensor& b) {
  const Tensor quotient = a / b;
  const Tensor mod = fmod(a, b);
  Tensor div = (a - mod) / b;
  div = where(logical_and(ne(mod, 0.0), ne(lt(b, 0.0), lt(mod, 0.0))), div - 1.0, div);
  Tensor nearest = floor(div);
  nearest = where(gt(div - nearest, 0.5), nearest + 1.0, nearest);
  const Tensor result = where(eq(div, 0.0), quotient * 0.0, nearest);
  return where(eq(b, 0.0), quotient, result);
}

// What a row's backward closure keeps (the `saves` column).
#define HETERO_KEEPS_X_input true
#define HETERO_KEEPS_X_output false
#define HETERO_KEEPS_X_nothing false
#define HETERO_KEEPS_Y_input false
#define HETERO_KEEPS_Y_output true
#define HETERO_KEEPS_Y_nothing false
#define HETERO_KEEPS_AB_inputs true
#define HETERO_KEEPS_AB_shapes false
#define HETERO_KEEPS_AB_nothing false

}  // namespace

// Each public op computes under NoGradGuard and records one node (Note [Autograd]).
using detail::Gradients;
using detail::record;
using detail::saved;
using detail::untracked;
namespace formulas = detail::formulas;

#define HETERO_DEFINE_UNARY(name, since, dtypes, floating_rule, integer_rule, saves, backward) \
  Tensor name(const Tensor& input) {                                                           \
    Tensor out = untracked([&] { return unary(UnaryOp::name, input); });                       \
    return record(backward_name(UnaryOp::name), out, {input}, [&] {                            \
      return [x = HETERO_KEEPS_X_##saves ? saved(input) : Tensor(),                            \
              y = HETERO_KEEPS_Y_##saves ? saved(out) : Tensor()](const Tensor& g) {           \
        (void)x;                                                                               \
        (void)y;                                                                               \
        return Gradients{backward};                                                            \
      };                                                                                       \
    });                                                                                        \
  }
HETERO_FORALL_UNARY_OPS(HETERO_DEFINE_UNARY)
#undef HETERO_DEFINE_UNARY

// A row's public function: arithmetic and floating rows record their gradients (a floating
// row's integer operands are computed in float32 by result_dtype()); comparison rows return
// bool (compare()).
#define HETERO_DEFINE_BINARY(name, since, dtypes, ...) \
  HETERO_DEFINE_BINARY_##dtypes(name, __VA_ARGS__)
#define HETERO_DEFINE_BINARY_comparison(name, ...) \
  Tensor name(const Tensor& lhs, const Tensor& rhs) { return compare(BinaryOp::name, lhs, rhs); }
#define HETERO_DEFINE_BINARY_arithmetic(name, floating_rule, integer_rule, saves, grad_a, grad_b) \
  Tensor name(const Tensor& lhs, const Tensor& rhs) {                                             \
    Tensor out = untracked([&] { return binary(BinaryOp::name, lhs, rhs); });                     \
    return record(backward_name(BinaryOp::name), out, {lhs, rhs}, [&] {                           \
      return [a = HETERO_KEEPS_AB_##saves ? saved(lhs) : Tensor(),                                \
              b = HETERO_KEEPS_AB_##saves ? saved(rhs) : Tensor(), sa = lhs.shape(),              \
              sb = rhs.shape()](const Tensor& g) {                                                \
        (void)a;                                                                                  \
        (void)b;                                                                                  \
        return Gradients{unbroadcast(grad_a, sa), unbroadcast(grad_b, sb)};                       \
      };                                                                                          \
    });                                                                                           \
  }
#define HETERO_DEFINE_BINARY_floating HETERO_DEFINE_BINARY_arithmetic
HETERO_FORALL_BINARY_OPS(HETERO_DEFINE_BINARY)
#undef HETERO_DEFINE_BINARY
#undef HETERO_DEFINE_BINARY_floating
#undef HETERO_DEFINE_BINARY_comparison
#undef HETERO_DEFINE_BINARY_arithmetic

Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor eq(const Tensor& a, double s) { return eq(a, detail::scalar_operand(a, s)); }
Tensor ne(const Tensor& a, double s) { return ne(a, detail::scalar_operand(a, s)); }
Tensor lt(const Tensor& a, double s) { return lt(a, detail::scalar_operand(a, s)); }
Tensor le(const Tensor& a, double s) { return le(a, detail::scalar_operand(a, s)); }
Tensor gt(const Tensor& a, double s) { return gt(a, detail::scalar_operand(a, s)); }
Tensor ge(const Tensor& a, double s) { return ge(a, detail::scalar_operand(a, s)); }

Tensor fmod(const Tensor& a, double b) { return fmod(a, detail::scalar_operand(a, b)); }
Tensor remainder(const Tensor& a, double b) { return remainder(a, detail::scalar_operand(a, b)); }

Tensor pow(const Tensor& a, double exponent) {
  const Tensor e = detail::scalar_operand(a, exponent);
  // As torch's pow(Tensor, Scalar): a finite exponent beyond a 16-bit result dtype's largest
  // value raises DTypeError (inf and NaN pass; float32 and other ops' scalars are not checked).
  if (is_half(e.dtype())) detail::check_value_fits("pow", exponent, e.dtype());
  // torch's pow(Tensor, 0.5) is sqrt (pow_tensor_scalar_optimized_kernel): the same values
  // (sqrt is correctly rounded in every dtype), but sqrt(-inf) is NaN where C's pow gives
  // inf, and the gradient at -0 is -inf.
  if (exponent == 0.5 && is_floating_point(a.dtype())) return sqrt(a);
  if (e.dtype() == DType::float64) return pow(a, e);
  // As torch's pow(Tensor, Scalar) (its scalar path): the exponent is not rounded to the
  // result's dtype; computed in float64 and rounded once.
  return pow(a.to(DType::float64),
             full({}, exponent, TensorOptions().dtype(DType::float64).device(a.device())))
      .to(e.dtype());
}
Tensor pow(double base, const Tensor& exponent) {
  return pow(detail::scalar_operand(exponent, base), exponent);
}
namespace detail {
Tensor pow_integral(const Tensor& a, std::int64_t exponent) {
  impl_of(a, "pow");
  if (exponent < 0 && (is_integral(a.dtype()) || a.dtype() == DType::bool_))
    throw DTypeError(
        "pow: integers to negative integer powers are not allowed (as torch); "
        "got exponent " +
        std::to_string(exponent) + " for a " + std::string(dtype_name(a.dtype())) +
        " tensor; use a floating exponent");
  const std::int64_t limit = a.dtype() == DType::int8    ? 127
                             : a.dtype() == DType::uint8 ? 255
                             : a.dtype() == DType::int32 ? 2147483647
                                                         : INT64_MAX;
  if (exponent > limit || (a.dtype() == DType::float16 && std::abs(exponent) > 65504))
    throw ValueError("pow: exponent " + std::to_string(exponent) + " cannot be converted to " +
                     std::string(dtype_name(a.dtype())) + " without overflow (as torch)");
  return pow(a, scalar_operand(a, exponent));
}
}  // namespace detail

Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y) {
  detail::impl_of(cond, "where");
  if (cond.dtype() != DType::bool_)
    throw DTypeError("where: expected the condition to be a bool tensor, got " +
                     std::string(dtype_name(cond.dtype())) +
                     " (as torch); compare first, e.g. x > 0");
  detail::impl_of(x, "where");
  detail::impl_of(y, "where");
  const DType t = detail::result_type(x.dtype(), x.dim() == 0, y.dtype(), y.dim() == 0);
  Tensor out = untracked([&] { return ternary(TernaryOp::where, cond, x, y, t); });
  return record("WhereBackward", out, {cond, x, y}, [&] {
    return [c = saved(cond), sx = x.shape(), sy = y.shape()](const Tensor& g) {
      const Tensor zero = detail::scalar_operand(g, 0.0);
      return Gradients{Tensor(), unbroadcast(where(c, g, zero), sx),
                       unbroadcast(where(c, zero, g), sy)};
    };
  });
}
Tensor where(const Tensor& cond, const Tensor& x, double y) {
  return where(cond, x, detail::scalar_operand(x, y));
}
Tensor where(const Tensor& cond, double x, const Tensor& y) {
  return where(cond, detail::scalar_operand(y, x), y);
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
namespace detail {
Tensor scalar_operand(const Tensor& a, double s) {
  impl_of(a, "scalar op");
  const DType t = is_floating_point(a.dtype()) ? a.dtype() : DType::float32;
  Tensor out = new_tensor_like({}, t, a);
  fill(out, s);
  return out;
}
Tensor scalar_operand(const Tensor& a, std::int64_t s) {
  impl_of(a, "scalar op");
  const DType t = a.dtype() == DType::bool_ ? DType::int64 : a.dtype();
  Tensor out = new_tensor_like({}, t, a);
  fill(out, s);
  return out;
}
}  // namespace detail

using detail::scalar_operand;
Tensor operator+(const Tensor& a, double s) { return add(a, scalar_operand(a, s)); }
Tensor operator-(const Tensor& a, double s) { return sub(a, scalar_operand(a, s)); }
Tensor operator*(const Tensor& a, double s) { return mul(a, scalar_operand(a, s)); }
Tensor operator/(const Tensor& a, double s) { return div(a, scalar_operand(a, s)); }
Tensor operator+(double s, const Tensor& a) { return add(scalar_operand(a, s), a); }
Tensor operator-(double s, const Tensor& a) { return sub(scalar_operand(a, s), a); }
Tensor operator*(double s, const Tensor& a) { return mul(scalar_operand(a, s), a); }
Tensor operator/(double s, const Tensor& a) { return div(scalar_operand(a, s), a); }
Tensor operator-(const Tensor& a) { return neg(a); }

Tensor cast(const Tensor& a, DType t) {
  detail::impl_of(a, "cast");
  const detail::prof::Scope op_scope("to", a);  // torch.profiler's aten::to
  Tensor out = detail::new_tensor_like(a.shape(), t, a);
  if (out.numel() > 0)
    detail::calls::cast(detail::storage_of(out), detail::view_of(a), detail::view_of(out));
  if (!is_floating_point(t)) return out;  // integer results take no gradient
  return record("CastBackward", out, {a}, [&] {
    return [from = a.dtype()](const Tensor& g) { return formulas::cast(g, from); };
  });
}

namespace {
// softmax's and log_softmax's input rules (as torch): a floating dtype, `dim` in range; an
// empty tensor is its own result.
bool softmax_input_is_empty(const Tensor& a, std::int64_t dim, const char* name) {
  detail::impl_of(a, name);
  if (!is_floating_point(a.dtype()))
    throw DTypeError(std::string(name) + ": expected a floating dtype, got " +
                     std::string(dtype_name(a.dtype())) + "; cast first (as torch)");
  detail::wrap_dim(dim, a.dim(), name);
  return a.numel() == 0;
}

// The backend's fused kernel (one pass over each line for the maximum, one for the sum,
// one to write) where it has one for the dtype; an empty tensor otherwise.
Tensor fused_softmax(SoftmaxOp op, const Tensor& a, std::int64_t dim) {
  const detail::Storage& on = detail::storage_of(a);
  if (!detail::calls::has_kernel(on, op, a.dtype())) return {};
  Tensor out = detail::new_tensor_like(a.shape(), a.dtype(), a);
  const std::int64_t d = detail::wrap_dim(dim, a.dim(), op_name(op).data());
  if (a.dim() == 0) {  // a scalar is a line of one element (the kernel takes ndim >= 1)
    const Shape line{1};
    detail::calls::softmax(detail::storage_of(out), op, detail::view_of(a, line, {1}),
                           detail::view_of(out, line, {1}), 0);
    return out;
  }
  detail::calls::softmax(detail::storage_of(out), op, detail::view_of(a), detail::view_of(out),
                         static_cast<int>(d));
  return out;
}
}  // namespace

Tensor softmax(const Tensor& a, std::int64_t dim) {
  const detail::prof::Scope op_scope("softmax", a);
  if (softmax_input_is_empty(a, dim, "softmax")) return a.clone();
  Tensor out = untracked([&] {
    if (Tensor fused = fused_softmax(SoftmaxOp::softmax, a, dim); fused.defined()) return fused;
    const Tensor& x = a;
    const Tensor e = exp(x - x.max(dim, true));
    return e / e.sum(dim, true);
  });
  // dx = y * (g - sum(g * y, dim))
  return record("SoftmaxBackward", out, {a}, [&] {
    return [y = saved(out), dim](const Tensor& g) { return formulas::softmax(g, y, dim); };
  });
}

Tensor log_softmax(const Tensor& a, std::int64_t dim) {
  const detail::prof::Scope op_scope("log_softmax", a);
  if (softmax_input_is_empty(a, dim, "log_softmax")) return a.clone();
  Tensor out = untracked([&] {
    if (Tensor fused = fused_softmax(SoftmaxOp::log_softmax, a, dim); fused.defined()) return fused;
    const Tensor& x = a;
    const Tensor shifted = x - x.max(dim, true);
    return shifted - log(exp(shifted).sum(dim, true));
  });
  // dx = g - exp(y) * sum(g, dim)
  return record("LogSoftmaxBackward", out, {a}, [&] {
    return [y = saved(out), dim](const Tensor& g) { return formulas::log_softmax(g, y, dim); };
  });
}

}  // namespace hetero
