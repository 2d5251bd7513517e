// SPDX-License-Identifier: Apache-2.0
// Note [Batch norm kernels] (batch_norm_kernels.hpp).
#include "batch_norm_kernels.hpp"

#include "../backend_calls.hpp"
#include "../op_helpers.hpp"

namespace hetero::nn::norm_detail {
namespace {

BatchNormArgs args_of(const Tensor& x3, double eps) {
  return {x3.size(0), x3.size(1), x3.size(2), eps};
}

}  // namespace

bool batch_norm_by_kernels(const Tensor& x) {
  const detail::Storage& on = detail::storage_of(x);
  return detail::calls::has_kernel(on, BatchNormOp::forward_training, x.dtype()) &&
         detail::calls::has_kernel(on, BatchNormOp::backward, x.dtype());
}

BatchNormForward batch_norm_forward(const Tensor& x3, const Tensor& weight_bias, double eps) {
  const Tensor x = x3.contiguous(), wb = weight_bias.contiguous();
  BatchNormForward r{detail::new_tensor_like(x.shape(), x.dtype(), x),
                     detail::new_tensor_like({2, x.size(1)}, x.dtype(), x)};
  BatchNormViews v;
  v.input = detail::view_of(x);
  v.weight_bias = detail::view_of(wb);
  v.output = detail::view_of(r.y);
  v.stats = detail::view_of(r.stats);
  detail::calls::batch_norm(detail::storage_of(r.y), BatchNormOp::forward_training, args_of(x, eps),
                            v);
  return r;
}

BatchNormBackward batch_norm_backward(const Tensor& g, const Tensor& x3, const Tensor& weight_bias,
                                      const Tensor& stats, double eps) {
  const Tensor x = x3.contiguous(), dy = g.contiguous();
  BatchNormBackward r{detail::new_tensor_like(x.shape(), x.dtype(), x),
                      detail::new_tensor_like({2, x.size(1)}, x.dtype(), x)};
  BatchNormViews v;
  v.input = detail::view_of(x);
  v.grad_output = detail::view_of(dy);
  v.weight_bias = detail::view_of(weight_bias);
  v.stats = detail::view_of(stats);
  v.output = detail::view_of(r.grad_input);
  v.grad_weight_bias = detail::view_of(r.grad_weight_bias);
  detail::calls::batch_norm(detail::storage_of(r.grad_input), BatchNormOp::backward,
                            args_of(x, eps), v);
  return r;
}

}  // namespace hetero::nn::norm_detail
