// Reductions: the output view keeps the input's rank with size-1 reduced dimensions.
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "dispatch.hpp"

namespace hetero {
namespace {

const char* reduce_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::mean: return "mean";
    case ReduceOp::max: return "max";
    case ReduceOp::min: return "min";
    case ReduceOp::norm: return "norm";
    case ReduceOp::argmax: return "argmax";
  }
  return "reduce";
}

// Validates dtype, picks the computation and result dtypes (as torch: sum of bool and
// int32 gives int64; mean and norm need floating input; argmax gives int64).
Tensor prepare_input(ReduceOp op, const Tensor& a, DType& out_dtype) {
  const char* name = reduce_name(op);
  detail::impl_of(a, name);
  DType t = a.dtype();
  if ((op == ReduceOp::mean || op == ReduceOp::norm) && !is_floating_point(t))
    throw DTypeError(std::string(name) + "(): expected a floating dtype, got " + std::string(dtype_name(t)) +
                     "; cast first (e.g. x.to(DType::float32))");
  if (op == ReduceOp::sum && (t == DType::bool_ || t == DType::int32)) t = DType::int64;
  if ((op == ReduceOp::max || op == ReduceOp::min || op == ReduceOp::argmax) && t == DType::bool_)
    t = DType::int64;
  out_dtype = op == ReduceOp::argmax ? DType::int64 : t;
  return a.to(t);
}

void check_nonempty(ReduceOp op, const Tensor& a, std::int64_t reduced_count) {
  if ((op == ReduceOp::max || op == ReduceOp::min || op == ReduceOp::argmax) && reduced_count == 0)
    throw ShapeError(std::string(reduce_name(op)) + "(): cannot reduce an empty range of tensor of shape " +
                     detail::shape_str(a.shape()));
}

Tensor run(ReduceOp op, const Tensor& in, const Shape& kept_shape, DType out_dtype) {
  Tensor out = detail::new_tensor(kept_shape, out_dtype, in.device());
  if (out.numel() == 0) return out;
  detail::backend_of(out).reduce(op, detail::view_of(in), detail::view_of(out), detail::stream_of(out));
  return out;
}

Tensor reduce_all(ReduceOp op, const Tensor& a) {
  DType out_dtype;
  const Tensor in = prepare_input(op, a, out_dtype);
  check_nonempty(op, a, in.numel());
  const Shape ones(in.shape().size(), 1);
  return run(op, in, ones, out_dtype).view({});
}

Tensor reduce_dim(ReduceOp op, const Tensor& a, std::int64_t dim, bool keepdim) {
  DType out_dtype;
  const Tensor in = prepare_input(op, a, out_dtype);
  if (in.dim() == 0) {
    detail::wrap_dim(dim, 0, reduce_name(op));
    return run(op, in, {}, out_dtype);
  }
  const auto d = static_cast<std::size_t>(detail::wrap_dim(dim, in.dim(), reduce_name(op)));
  check_nonempty(op, a, in.shape()[d]);
  Shape kept = in.shape();
  kept[d] = 1;
  Tensor out = run(op, in, kept, out_dtype);
  return keepdim ? out : out.squeeze(static_cast<std::int64_t>(d));
}

}  // namespace

Tensor sum(const Tensor& a) { return reduce_all(ReduceOp::sum, a); }
Tensor sum(const Tensor& a, std::int64_t d, bool k) { return reduce_dim(ReduceOp::sum, a, d, k); }
Tensor mean(const Tensor& a) { return reduce_all(ReduceOp::mean, a); }
Tensor mean(const Tensor& a, std::int64_t d, bool k) { return reduce_dim(ReduceOp::mean, a, d, k); }
Tensor max(const Tensor& a) { return reduce_all(ReduceOp::max, a); }
Tensor max(const Tensor& a, std::int64_t d, bool k) { return reduce_dim(ReduceOp::max, a, d, k); }
Tensor min(const Tensor& a) { return reduce_all(ReduceOp::min, a); }
Tensor min(const Tensor& a, std::int64_t d, bool k) { return reduce_dim(ReduceOp::min, a, d, k); }
Tensor norm(const Tensor& a) { return reduce_all(ReduceOp::norm, a); }
Tensor argmax(const Tensor& a) { return reduce_all(ReduceOp::argmax, a); }
Tensor argmax(const Tensor& a, std::int64_t d, bool k) { return reduce_dim(ReduceOp::argmax, a, d, k); }

}  // namespace hetero
