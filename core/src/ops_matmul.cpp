// matmul as torch.matmul: 1-D operands are promoted to matrices and the added dimension
// removed afterwards; batch dimensions broadcast; each batch is one GEMM of the backend.
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "dispatch.hpp"

namespace hetero {
namespace {

struct Operand {
  Tensor t;  // [batch..., rows, cols], batch dims already broadcast
  std::int64_t ld = 0;
  bool trans = false;
};

// Chooses the GEMM layout of the last two dimensions: row-major (stride[-1] == 1),
// column-major (stride[-2] == 1: a transposed view, passed as op(X) = X^T), or a copy.
Operand as_gemm_operand(Tensor t) {
  const std::size_t n = t.shape().size();
  auto rows = t.shape()[n - 2], cols = t.shape()[n - 1];
  auto sr = t.strides()[n - 2], sc = t.strides()[n - 1];
  if ((sc == 1 || cols == 1) && sr >= std::max<std::int64_t>(cols, 1)) return {t, sr, false};
  if ((sr == 1 || rows == 1) && sc >= std::max<std::int64_t>(rows, 1)) return {t, sc, true};
  Tensor c = t.clone();
  return {c, std::max<std::int64_t>(cols, 1), false};
}

// Collapses the broadcast batch dimensions of `t` (shape batch + [r, c]) into one batch
// stride when they are evenly spaced, else materialises them.
Tensor flatten_batch(const Tensor& t, const Shape& batch, std::int64_t& stride) {
  const std::size_t nb = batch.size();
  std::int64_t count = 1;
  for (auto b : batch) count *= b;
  const auto& st = t.strides();
  bool uniform = true;
  std::int64_t expected = -1;
  // Walk from the innermost batch dim: stride of dim i must be stride(i+1)*size(i+1).
  for (std::size_t i = nb; i-- > 0;) {
    if (batch[i] == 1) continue;
    if (expected < 0) {
      stride = st[i];
      expected = st[i] * batch[i];
    } else if (st[i] != expected || (stride == 0) != (st[i] == 0)) {
      uniform = false;
    } else {
      expected = st[i] * batch[i];
    }
  }
  if (expected < 0) stride = 0;
  const auto r = t.shape()[nb], c = t.shape()[nb + 1];
  if (uniform) {
    auto impl = std::make_shared<detail::TensorImpl>(*t.impl());
    impl->autograd = nullptr;
    impl->shape = {count, r, c};
    impl->strides = {stride, st[nb], st[nb + 1]};
    return Tensor(std::move(impl));
  }
  Tensor m = t.clone();
  stride = r * c;
  return m.view({count, r, c});
}

Tensor expand_to(const Tensor& t, const Shape& batch) {
  auto impl = std::make_shared<detail::TensorImpl>(*t.impl());
  impl->autograd = nullptr;
  const auto& s = t.shape();
  const auto& st = t.strides();
  const std::size_t own = s.size() - 2;
  impl->shape = batch;
  impl->strides.assign(batch.size(), 0);
  for (std::size_t i = 0; i < own; ++i) {
    const std::size_t j = batch.size() - own + i;
    impl->strides[j] = s[i] == 1 ? 0 : st[i];
  }
  impl->shape.push_back(s[own]);
  impl->shape.push_back(s[own + 1]);
  impl->strides.push_back(st[own]);
  impl->strides.push_back(st[own + 1]);
  return Tensor(std::move(impl));
}

Tensor matmul_impl(const Tensor& a_in, const Tensor& b_in) {
  detail::check_same_device("matmul", {&a_in, &b_in});
  if (a_in.dim() == 0 || b_in.dim() == 0)
    throw ShapeError("matmul: both arguments need at least 1 dimension, got shapes " +
                     detail::shape_str(a_in.shape()) + " and " + detail::shape_str(b_in.shape()));
  if (!is_floating_point(a_in.dtype()) || !is_floating_point(b_in.dtype()))
    throw DTypeError("matmul: expected floating dtypes, got " +
                     std::string(dtype_name(a_in.dtype())) + " and " +
                     std::string(dtype_name(b_in.dtype())));
  // Equal dtypes stay (float16 @ float16 is float16, accumulated in float32 by the
  // backend); mixed ones compute in float64 if either is, else float32.
  const DType t = a_in.dtype() == b_in.dtype() ? a_in.dtype()
                  : (a_in.dtype() == DType::float64 || b_in.dtype() == DType::float64)
                      ? DType::float64
                      : DType::float32;
  const bool a_vec = a_in.dim() == 1, b_vec = b_in.dim() == 1;
  const Tensor a = a_vec ? a_in.to(t).unsqueeze(0) : a_in.to(t);
  const Tensor b = b_vec ? b_in.to(t).unsqueeze(1) : b_in.to(t);
  const std::int64_t m = a.size(-2), k = a.size(-1), k2 = b.size(-2), n = b.size(-1);
  if (k != k2)
    throw ShapeError("matmul: shapes " + detail::shape_str(a_in.shape()) + " and " +
                     detail::shape_str(b_in.shape()) + " cannot be multiplied (" +
                     std::to_string(m) + "x" + std::to_string(k) + " and " + std::to_string(k2) +
                     "x" + std::to_string(n) + ")");
  // Broadcast batch dimensions.
  const Shape sa(a.shape().begin(), a.shape().end() - 2),
      sb(b.shape().begin(), b.shape().end() - 2);
  const Shape batch = detail::broadcast_shapes("matmul (batch dimensions)", sa, sb);
  Shape out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  Tensor out = detail::new_tensor(out_shape, t, a.device());
  std::int64_t count = 1;
  for (auto x : batch) count *= x;

  if (out.numel() > 0 && k == 0) {
    detail::fill(out, 0.0);  // Note [Empty tensors]: a sum of no products, never a GEMM
  } else if (out.numel() > 0) {
    std::int64_t stride_a = 0, stride_b = 0;
    // Two matrices (the common case): their own views, no batch views to build.
    const Operand oa = batch.empty()
                           ? as_gemm_operand(a)
                           : as_gemm_operand(flatten_batch(expand_to(a, batch), batch, stride_a));
    const Operand ob = batch.empty()
                           ? as_gemm_operand(b)
                           : as_gemm_operand(flatten_batch(expand_to(b, batch), batch, stride_b));
    // Batch strides are read from the operands: as_gemm_operand may have copied them.
    GemmArgs g;
    g.dtype = t;
    g.trans_a = oa.trans;
    g.trans_b = ob.trans;
    g.m = m;
    g.n = n;
    g.k = k;
    g.batch = count;
    g.a = oa.t.impl()->storage->buffer.get();
    g.a_offset = oa.t.impl()->offset;
    g.lda = oa.ld;
    g.stride_a = count > 1 ? oa.t.strides()[0] : 0;
    g.b = ob.t.impl()->storage->buffer.get();
    g.b_offset = ob.t.impl()->offset;
    g.ldb = ob.ld;
    g.stride_b = count > 1 ? ob.t.strides()[0] : 0;
    g.c = out.impl()->storage->buffer.get();
    g.c_offset = 0;
    g.ldc = std::max<std::int64_t>(n, 1);
    g.stride_c = m * n;
    detail::backend_of(out).gemm(g, detail::stream_of(out));
  }
  if (a_vec) out = out.squeeze(-2);
  if (b_vec) out = out.squeeze(-1);
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = matmul_impl(a, b);
  }
  // Note [Backward formulas]: formulas::matmul.
  return detail::record("MatmulBackward", out, {a, b}, [&] {
    return [sa = detail::saved(a), sb = detail::saved(b)](const Tensor& g) {
      return detail::formulas::matmul(g, sa, sb);
    };
  });
}

}  // namespace hetero
