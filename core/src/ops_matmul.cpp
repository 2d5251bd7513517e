// SPDX-License-Identifier: Apache-2.0
// matmul as torch.matmul: 1-D operands are promoted to matrices and the added dimension
// removed afterwards; batch dimensions broadcast; each batch is one GEMM of the backend.
#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "backend_calls.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {
namespace {

struct Operand {
  const detail::TensorImpl* impl = nullptr;  // [batch..., rows, cols], batch dims broadcast
  Tensor copy;                               // owns `impl` when the operand had to be copied
  std::int64_t ld = 0;
  bool trans = false;
};

// Chooses the GEMM layout of the last two dimensions: row-major (stride[-1] == 1),
// column-major (stride[-2] == 1: a transposed view, passed as op(X) = X^T), or a copy.
// `t` must outlive the operand.
Operand as_gemm_operand(const Tensor& t) {
  const detail::TensorImpl& i = *t.impl();
  const std::size_t n = i.shape.size();
  const auto rows = i.shape[n - 2], cols = i.shape[n - 1];
  const auto sr = i.strides[n - 2], sc = i.strides[n - 1];
  if ((sc == 1 || cols == 1) && sr >= std::max<std::int64_t>(cols, 1)) return {&i, {}, sr, false};
  if ((sr == 1 || rows == 1) && sc >= std::max<std::int64_t>(rows, 1)) return {&i, {}, sc, true};
  Tensor c = t.clone();
  const detail::TensorImpl* ci = c.impl().get();
  return {ci, std::move(c), std::max<std::int64_t>(cols, 1), false};
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

// a_in @ b_in (torch.matmul's shapes and dtypes); or, given `into` (a fresh contiguous
// tensor of the product's shape and dtype), alpha * a_in @ b_in + beta * into written into it
// by the backend's GEMM, which rounds once (torch's baddbmm: BLAS's alpha and beta; a 16-bit
// C = alpha AB + beta C in float32). Without `into`, beta is 0.
Tensor matmul_impl(const Tensor& a_in, const Tensor& b_in, double alpha = 1.0,
                   const Tensor* into = nullptr, double beta = 0.0) {
  detail::check_same_device("matmul", {&a_in, &b_in});
  if (a_in.dim() == 0 || b_in.dim() == 0)
    throw ShapeError("matmul: both arguments need at least 1 dimension, got shapes " +
                     detail::shape_str(a_in.shape()) + " and " + detail::shape_str(b_in.shape()));
  if (!is_floating_point(a_in.dtype()) || !is_floating_point(b_in.dtype()))
    throw DTypeError("matmul: expected floating dtypes, got " +
                     std::string(dtype_name(a_in.dtype())) + " and " +
                     std::string(dtype_name(b_in.dtype())));
  // One dtype, as torch.matmul (float16 @ float16 is float16, accumulated in float32 by the
  // backend).
  if (a_in.dtype() != b_in.dtype())
    throw DTypeError("matmul: expected both operands of one dtype, got " +
                     std::string(dtype_name(a_in.dtype())) + " and " +
                     std::string(dtype_name(b_in.dtype())) + " (as torch); convert one first");
  const DType t = a_in.dtype();
  const bool a_vec = a_in.dim() == 1, b_vec = b_in.dim() == 1;
  const Tensor a = a_vec ? a_in.unsqueeze(0) : a_in;
  const Tensor b = b_vec ? b_in.unsqueeze(1) : b_in;
  // Shapes are read from the impls directly: this runs before every GEMM, and its fixed
  // cost is what a small matmul pays on top of the BLAS call.
  const Shape& shape_a = a.impl()->shape;
  const Shape& shape_b = b.impl()->shape;
  const std::size_t na = shape_a.size(), nb = shape_b.size();
  const std::int64_t m = shape_a[na - 2], k = shape_a[na - 1], k2 = shape_b[nb - 2],
                     n = shape_b[nb - 1];
  if (k != k2)
    throw ShapeError("matmul: shapes " + detail::shape_str(a_in.shape()) + " and " +
                     detail::shape_str(b_in.shape()) + " cannot be multiplied (" +
                     std::to_string(m) + "x" + std::to_string(k) + " and " + std::to_string(k2) +
                     "x" + std::to_string(n) + ")");
  // Broadcast batch dimensions (none, and no allocation, for two matrices).
  Shape batch;
  if (na > 2 || nb > 2)
    batch = detail::broadcast_shapes("matmul (batch dimensions)",
                                     Shape(shape_a.begin(), shape_a.end() - 2),
                                     Shape(shape_b.begin(), shape_b.end() - 2));
  Shape out_shape;
  out_shape.reserve(batch.size() + 2);
  out_shape.assign(batch.begin(), batch.end());
  out_shape.push_back(m);
  out_shape.push_back(n);
  HETERO_INTERNAL_ASSERT(
      !into || (into->shape() == out_shape && into->dtype() == t && into->is_contiguous()),
      "matmul_impl: `into` is not a contiguous " + std::string(dtype_name(t)) +
          " tensor of shape " + detail::shape_str(out_shape));
  Tensor out = into ? *into : detail::new_tensor_like(std::move(out_shape), t, a);
  std::int64_t count = 1;
  for (auto x : batch) count *= x;

  if (count * m * n > 0 && k == 0) {
    // Note [Empty tensors]: a sum of no products, never a GEMM; beta * C is what remains.
    if (!into || beta == 0)
      detail::fill(out, 0.0);
    else if (beta != 1)
      out = out * beta;
  } else if (count * m * n > 0) {
    std::int64_t stride_a = 0, stride_b = 0;
    // Two matrices (the common case): their own views, no batch views to build.
    const Tensor batched_a =
        batch.empty() ? Tensor() : flatten_batch(expand_to(a, batch), batch, stride_a);
    const Tensor batched_b =
        batch.empty() ? Tensor() : flatten_batch(expand_to(b, batch), batch, stride_b);
    const Operand oa = as_gemm_operand(batch.empty() ? a : batched_a);
    const Operand ob = as_gemm_operand(batch.empty() ? b : batched_b);
    // Batch strides are read from the operands: as_gemm_operand may have copied them.
    GemmArgs g;
    g.dtype = t;
    g.trans_a = oa.trans;
    g.trans_b = ob.trans;
    g.m = m;
    g.n = n;
    g.k = k;
    g.batch = count;
    g.alpha = alpha;
    g.beta = into ? beta : 0.0;
    g.a = detail::input_storage_of(*oa.impl->storage).buffer.get();
    g.a_offset = oa.impl->offset;
    g.lda = oa.ld;
    g.stride_a = count > 1 ? oa.impl->strides[0] : 0;
    g.b = detail::input_storage_of(*ob.impl->storage).buffer.get();
    g.b_offset = ob.impl->offset;
    g.ldb = ob.ld;
    g.stride_b = count > 1 ? ob.impl->strides[0] : 0;
    const detail::Storage& out_storage = detail::storage_of(out);
    g.c = out_storage.buffer.get();
    g.c_offset = 0;
    g.ldc = std::max<std::int64_t>(n, 1);
    g.stride_c = m * n;
    detail::calls::gemm(out_storage, g);
  }
  if (a_vec) out = out.squeeze(-2);
  if (b_vec) out = out.squeeze(-1);
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  const detail::prof::Scope op_scope("matmul", a);
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

namespace {
// bmm's operands: 3-D with equal batch sizes and inner sizes (ShapeError, torch's messages).
void check_bmm(const Tensor& a, const Tensor& b, const char* op) {
  detail::impl_of(a, op);
  detail::impl_of(b, op);
  if (a.dim() != 3)
    throw ShapeError(std::string(op) + ": batch1 must be a 3D tensor, got shape " +
                     detail::shape_str(a.shape()));
  if (b.dim() != 3)
    throw ShapeError(std::string(op) + ": batch2 must be a 3D tensor, got shape " +
                     detail::shape_str(b.shape()));
  if (a.shape()[0] != b.shape()[0] || a.shape()[2] != b.shape()[1])
    throw ShapeError(
        std::string(op) + ": Expected size for first two dimensions of batch2 tensor to be: [" +
        std::to_string(a.shape()[0]) + ", " + std::to_string(a.shape()[2]) + "] but got: [" +
        std::to_string(b.shape()[0]) + ", " + std::to_string(b.shape()[1]) + "] (as torch)");
}
}  // namespace

Tensor bmm(const Tensor& a, const Tensor& b) {
  check_bmm(a, b, "bmm");
  return matmul(a, b);
}

Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, double beta,
               double alpha) {
  detail::impl_of(input, "baddbmm");
  check_bmm(batch1, batch2, "baddbmm");
  detail::check_same_device("baddbmm", {&input, &batch1});
  // input must broadcast to the product's shape (not the other way round).
  const Shape shape{batch1.shape()[0], batch1.shape()[1], batch2.shape()[2]};
  if (detail::broadcast_shapes("baddbmm", input.shape(), shape) != shape)
    throw ShapeError("baddbmm: input of shape " + detail::shape_str(input.shape()) +
                     " does not broadcast to the product's shape " + detail::shape_str(shape));
  // The result is in the batches' dtype, the input converted to it (torch 1.13: a float64
  // input with float32 batches gives float32).
  const DType t = batch1.dtype();
  const Tensor in = input.dtype() == t || !is_floating_point(t) ? input : input.to(t);
  // One GEMM, alpha * (batch1 @ batch2) + beta * input, rounded once as torch's (BLAS's alpha
  // and beta): composed of a product, a scaling and a sum, a float16 result overflowed where
  // alpha * the product leaves float16's range and the sum comes back into it (differential
  // test seed 1130018 case 19919: -49120 + 2 * 47073.7 gave inf, torch 45024). beta == 0
  // ignores the input, its NaN and inf too, as torch.
  Tensor out;
  {
    NoGradGuard no_grad;
    Tensor c;
    if (beta != 0) {
      c = detail::new_tensor_like(shape, t, batch1);
      c.copy_(in.expand(shape));
    }
    out = matmul_impl(batch1, batch2, alpha, beta != 0 ? &c : nullptr, beta);
  }
  // Gradients in torch's order: alpha * (g @ batch2^T) and alpha * (batch1^T @ g), alpha
  // scaling after the product (scaling g first overflows where torch's stays finite, seed
  // 24); beta * g summed back to the input's shape afterwards (summing first overflows
  // likewise), and 0 where beta is 0.
  return detail::record("BaddbmmBackward", out, {in, batch1, batch2}, [&] {
    return [sa = detail::saved(batch1), sb = detail::saved(batch2), in_shape = in.shape(),
            in_grad = in.requires_grad(), alpha, beta](const Tensor& g) {
      auto grads = detail::formulas::matmul(g, sa, sb);
      if (alpha != 1)
        for (Tensor& x : grads)
          if (x.defined()) x = x * alpha;
      Tensor gi;  // undefined (no gradient) where the input does not require one
      if (in_grad)
        gi = beta == 0 ? full(in_shape, 0.0, TensorOptions(g.device()).dtype(g.dtype()))
                       : detail::formulas::expand(beta == 1 ? g : g * beta, in_shape)[0];
      return detail::Gradients{gi, grads[0], grads[1]};
    };
  });
}

}  // namespace hetero
