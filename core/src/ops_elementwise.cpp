// Elementwise operations: promotion, NumPy broadcasting, then one backend call.
#include <cmath>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "dispatch.hpp"

namespace hetero {
namespace {

int rank(DType t) {
  switch (t) {
    case DType::bool_:
      return 0;
    case DType::int32:
      return 1;
    case DType::int64:
      return 2;
    case DType::float16:
      return 3;
    case DType::bfloat16:
      return 3;
    case DType::float32:
      return 4;
    case DType::float64:
      return 5;
  }
  return 0;
}

// bool < int32 < int64 < float16, bfloat16 < float32 < float64, and float16 with
// bfloat16 gives float32 (as torch.promote_types); bool arithmetic is done in int64.
DType promote(DType a, DType b) {
  if (is_half(a) && is_half(b) && a != b) return DType::float32;
  const DType t = rank(a) >= rank(b) ? a : b;
  return t == DType::bool_ ? DType::int64 : t;
}

const char* binary_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::add:
      return "add";
    case BinaryOp::sub:
      return "sub";
    case BinaryOp::mul:
      return "mul";
    case BinaryOp::div:
      return "div";
    case BinaryOp::maximum:
      return "maximum";
    case BinaryOp::minimum:
      return "minimum";
  }
  return "binary";
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

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const char* name = binary_name(op);
  detail::check_same_device(name, {&a, &b});
  DType t = promote(a.dtype(), b.dtype());
  if (op == BinaryOp::div && !is_floating_point(t)) t = DType::float32;  // true division
  // Operands already of dtype t are used as they are (no Tensor copies: reference counts
  // are atomic, and this is the path of every small op).
  Tensor a_cast, b_cast;
  const Tensor& a2 = a.dtype() == t ? a : (a_cast = a.to(t));
  const Tensor& b2 = b.dtype() == t ? b : (b_cast = b.to(t));
  if (a.shape() == b.shape()) {  // no broadcasting: the operands' own strides
    Tensor out = detail::new_tensor_like(a.shape(), t, a);
    if (out.numel() == 0) return out;
    detail::backend_of(out).binary(op, detail::view_of(a2), detail::view_of(b2),
                                   detail::view_of(out), detail::stream_of(out));
    return out;
  }
  const Shape shape = detail::broadcast_shapes(name, a.shape(), b.shape());
  Tensor out = detail::new_tensor_like(shape, t, a);
  if (out.numel() == 0) return out;
  detail::backend_of(out).binary(op, detail::view_of(a2, shape, broadcast_strides(a2, shape)),
                                 detail::view_of(b2, shape, broadcast_strides(b2, shape)),
                                 detail::view_of(out), detail::stream_of(out));
  return out;
}

// The scalar as a 0-d tensor on a's device: a's dtype, or float32 when a is integral
// and s is not (as torch).
Tensor scalar_like(const Tensor& a, double s) {
  detail::impl_of(a, "scalar op");
  DType t = a.dtype();
  if (!is_floating_point(t) && s != std::floor(s)) t = DType::float32;
  if (t == DType::bool_) t = DType::int64;
  return full({}, s, TensorOptions(a.device()).dtype(t));
}

Tensor unary(UnaryOp op, const Tensor& a, bool needs_float) {
  detail::impl_of(a, "unary op");
  DType t = a.dtype();
  if (needs_float && !is_floating_point(t)) t = DType::float32;
  if (t == DType::bool_) t = DType::int64;
  Tensor cast;
  const Tensor& in = a.dtype() == t ? a : (cast = a.to(t));
  Tensor out = detail::new_tensor_like(a.shape(), t, a);
  if (out.numel() == 0) return out;
  detail::backend_of(out).unary(op, detail::view_of(in), detail::view_of(out),
                                detail::stream_of(out));
  return out;
}

}  // namespace

// Each public op computes under NoGradGuard and records one node (Note [Autograd]).
using detail::Gradients;
using detail::record;
namespace formulas = detail::formulas;
using detail::saved;
using detail::unbroadcast;
using detail::untracked;

Tensor add(const Tensor& a, const Tensor& b) {
  return record("AddBackward", untracked([&] { return binary(BinaryOp::add, a, b); }), {a, b}, [&] {
    return [sa = a.shape(), sb = b.shape()](const Tensor& g) { return formulas::add(g, sa, sb); };
  });
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return record("SubBackward", untracked([&] { return binary(BinaryOp::sub, a, b); }), {a, b}, [&] {
    return [sa = a.shape(), sb = b.shape()](const Tensor& g) { return formulas::sub(g, sa, sb); };
  });
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return record("MulBackward", untracked([&] { return binary(BinaryOp::mul, a, b); }), {a, b}, [&] {
    return [a = saved(a), b = saved(b)](const Tensor& g) { return formulas::mul(g, a, b); };
  });
}
Tensor div(const Tensor& a, const Tensor& b) {
  return record("DivBackward", untracked([&] { return binary(BinaryOp::div, a, b); }), {a, b}, [&] {
    return [a = saved(a), b = saved(b)](const Tensor& g) { return formulas::div(g, a, b); };
  });
}
namespace {
// Gradients of maximum (or minimum): to the larger (smaller) operand, split evenly on
// ties, as torch.maximum.
Gradients extreme_gradients(const Tensor& g, const Tensor& a, const Tensor& b, bool is_max) {
  const Tensor a_wins = detail::nonzero_mask(relu(is_max ? a - b : b - a));
  const Tensor b_wins = detail::nonzero_mask(relu(is_max ? b - a : a - b));
  const Tensor half_tie = (1.0 - a_wins - b_wins) * 0.5;
  return Gradients{unbroadcast(g * (a_wins + half_tie), a.shape()),
                   unbroadcast(g * (b_wins + half_tie), b.shape())};
}
}  // namespace

Tensor maximum(const Tensor& a, const Tensor& b) {
  return record("MaximumBackward", untracked([&] { return binary(BinaryOp::maximum, a, b); }),
                {a, b}, [&] {
                  return [a = saved(a), b = saved(b)](const Tensor& g) {
                    return extreme_gradients(g, a, b, true);
                  };
                });
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return record("MinimumBackward", untracked([&] { return binary(BinaryOp::minimum, a, b); }),
                {a, b}, [&] {
                  return [a = saved(a), b = saved(b)](const Tensor& g) {
                    return extreme_gradients(g, a, b, false);
                  };
                });
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, double s) { return add(a, scalar_like(a, s)); }
Tensor operator-(const Tensor& a, double s) { return sub(a, scalar_like(a, s)); }
Tensor operator*(const Tensor& a, double s) { return mul(a, scalar_like(a, s)); }
Tensor operator/(const Tensor& a, double s) { return div(a, scalar_like(a, s)); }
Tensor operator+(double s, const Tensor& a) { return add(scalar_like(a, s), a); }
Tensor operator-(double s, const Tensor& a) { return sub(scalar_like(a, s), a); }
Tensor operator*(double s, const Tensor& a) { return mul(scalar_like(a, s), a); }
Tensor operator/(double s, const Tensor& a) { return div(scalar_like(a, s), a); }
Tensor operator-(const Tensor& a) { return neg(a); }

using detail::nonzero_mask;

Tensor neg(const Tensor& a) {
  return record("NegBackward", untracked([&] { return unary(UnaryOp::neg, a, false); }), {a},
                [&] { return [](const Tensor& g) { return formulas::neg(g); }; });
}
Tensor exp(const Tensor& a) {
  Tensor out = untracked([&] { return unary(UnaryOp::exp, a, true); });
  return record("ExpBackward", out, {a},
                [&] { return [y = saved(out)](const Tensor& g) { return formulas::exp(g, y); }; });
}
Tensor log(const Tensor& a) {
  return record("LogBackward", untracked([&] { return unary(UnaryOp::log, a, true); }), {a},
                [&] { return [x = saved(a)](const Tensor& g) { return formulas::log(g, x); }; });
}
Tensor sqrt(const Tensor& a) {
  Tensor out = untracked([&] { return unary(UnaryOp::sqrt, a, true); });
  return record("SqrtBackward", out, {a},
                [&] { return [y = saved(out)](const Tensor& g) { return formulas::sqrt(g, y); }; });
}
Tensor abs(const Tensor& a) {
  // d|x| = sign(x), 0 at 0 (as torch).
  return record("AbsBackward", untracked([&] { return unary(UnaryOp::abs, a, false); }), {a},
                [&] { return [x = saved(a)](const Tensor& g) { return formulas::abs(g, x); }; });
}
Tensor relu(const Tensor& a) {
  // d relu(x) = 1 where x > 0, else 0 (0 at 0, as torch).
  Tensor out = untracked([&] { return unary(UnaryOp::relu, a, false); });
  return record("ReluBackward", out, {a},
                [&] { return [y = saved(out)](const Tensor& g) { return formulas::relu(g, y); }; });
}
Tensor sigmoid(const Tensor& a) {
  Tensor out = untracked([&] { return unary(UnaryOp::sigmoid, a, true); });
  return record("SigmoidBackward", out, {a}, [&] {
    return [y = saved(out)](const Tensor& g) { return formulas::sigmoid(g, y); };
  });
}
Tensor tanh(const Tensor& a) {
  Tensor out = untracked([&] { return unary(UnaryOp::tanh, a, true); });
  return record("TanhBackward", out, {a},
                [&] { return [y = saved(out)](const Tensor& g) { return formulas::tanh(g, y); }; });
}

Tensor cast(const Tensor& a, DType t) {
  detail::impl_of(a, "cast");
  Tensor out = detail::new_tensor_like(a.shape(), t, a);
  if (out.numel() > 0) {
    auto& be = detail::backend_of(out);
    if (a.dtype() == t)
      be.copy_strided(detail::view_of(a), detail::view_of(out), detail::stream_of(out));
    else
      be.cast(detail::view_of(a), detail::view_of(out), detail::stream_of(out));
  }
  if (!is_floating_point(t)) return out;  // integer results take no gradient
  return record("CastBackward", out, {a}, [&] {
    return [from = a.dtype()](const Tensor& g) { return formulas::cast(g, from); };
  });
}

Tensor softmax(const Tensor& a, std::int64_t dim) {
  Tensor out = untracked([&] {
    const Tensor x = is_floating_point(a.dtype()) ? a : a.to(DType::float32);
    const Tensor e = exp(x - x.max(dim, true));
    return e / e.sum(dim, true);
  });
  // dx = y * (g - sum(g * y, dim))
  return record("SoftmaxBackward", out, {a}, [&] {
    return [y = saved(out), dim](const Tensor& g) { return formulas::softmax(g, y, dim); };
  });
}

Tensor log_softmax(const Tensor& a, std::int64_t dim) {
  Tensor out = untracked([&] {
    const Tensor x = is_floating_point(a.dtype()) ? a : a.to(DType::float32);
    const Tensor shifted = x - x.max(dim, true);
    return shifted - log(exp(shifted).sum(dim, true));
  });
  // dx = g - exp(y) * sum(g, dim)
  return record("LogSoftmaxBackward", out, {a}, [&] {
    return [y = saved(out), dim](const Tensor& g) { return formulas::log_softmax(g, y, dim); };
  });
}

}  // namespace hetero
