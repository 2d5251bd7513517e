// SPDX-License-Identifier: Apache-2.0
// The 1-d convolutions and pools as their 2-d forms over [N, C, 1, L] (torch's cpu conv1d
// takes the same route: it unsqueezes to 2-d), with torch 1.13's rank checks first.
#include <hetero/conv1d.hpp>

#include <string>

#include <hetero/conv.hpp>
#include <hetero/error.hpp>

#include "conv_plan.hpp"
#include "op_helpers.hpp"

namespace hetero {

namespace {

// The input's rank (2 or 3: ShapeError with `message` + its shape otherwise), then [.., C, 1,
// L] for the 2-d op.
Tensor as_2d(const Tensor& input, const std::string& message) {
  detail::impl_of(input, "conv1d");
  if (input.dim() != 2 && input.dim() != 3)
    throw ShapeError(message + detail::shape_str(input.shape()));
  return input.unsqueeze(-2);
}

std::string pool_message(const char* op) {
  return std::string(op) + ": Expected 2D or 3D (batch mode) tensor with optional 0 dim batch " +
         "size for input, but got: ";
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, std::int64_t stride,
              std::int64_t padding, std::int64_t dilation, std::int64_t groups) {
  const Tensor x = as_2d(
      input, "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: ");
  detail::impl_of(weight, "conv1d");
  if (weight.dim() != 3)
    throw ShapeError("conv1d: expected a 3-D weight [out_channels, in_channels / groups, K], " +
                     std::string("got size ") + detail::shape_str(weight.shape()));
  // Here, so that the message gives the 3-D weight (conv2d checks groups >= 1 itself).
  if (groups >= 1) detail::check_weight_rows(weight, groups);
  return conv2d(x, weight.unsqueeze(2), bias, {1, stride}, {0, padding}, {1, dilation}, groups)
      .squeeze(-2);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        std::int64_t stride, std::int64_t padding, std::int64_t output_padding,
                        std::int64_t groups, std::int64_t dilation) {
  const Tensor x = as_2d(input,
                         "Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but "
                         "got input of size: ");
  detail::impl_of(weight, "conv_transpose1d");
  if (weight.dim() != 3)
    throw ShapeError("conv_transpose1d: expected a 3-D weight [in_channels, out_channels / " +
                     std::string("groups, K], got size ") + detail::shape_str(weight.shape()));
  if (groups >= 1) detail::check_weight_rows(weight, groups);
  return conv_transpose2d(x, weight.unsqueeze(2), bias, {1, stride}, {0, padding},
                          {0, output_padding}, groups, {1, dilation})
      .squeeze(-2);
}

Tensor max_pool1d(const Tensor& input, std::int64_t kernel, std::optional<std::int64_t> stride,
                  std::int64_t padding, std::int64_t dilation, bool ceil_mode) {
  const Tensor x = as_2d(input, pool_message("max_pool1d"));
  return max_pool2d(x, {1, kernel}, Size2{1, stride.value_or(kernel)}, {0, padding}, {1, dilation},
                    ceil_mode)
      .squeeze(-2);
}

std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, std::int64_t kernel,
                                                  std::optional<std::int64_t> stride,
                                                  std::int64_t padding, std::int64_t dilation,
                                                  bool ceil_mode) {
  const Tensor x = as_2d(input, pool_message("max_pool1d"));
  // In a plane of one row, max_pool2d's position row * L + column is the step.
  const auto [y, index] = max_pool2d_with_indices(x, {1, kernel}, Size2{1, stride.value_or(kernel)},
                                                  {0, padding}, {1, dilation}, ceil_mode);
  return {y.squeeze(-2), index.squeeze(-2)};
}

Tensor avg_pool1d(const Tensor& input, std::int64_t kernel, std::optional<std::int64_t> stride,
                  std::int64_t padding, bool ceil_mode, bool count_include_pad) {
  const Tensor x = as_2d(input, pool_message("avg_pool1d"));
  return avg_pool2d(x, {1, kernel}, Size2{1, stride.value_or(kernel)}, {0, padding}, ceil_mode,
                    count_include_pad)
      .squeeze(-2);
}

Tensor adaptive_avg_pool1d(const Tensor& input, std::int64_t output_size) {
  const Tensor x = as_2d(input, pool_message("adaptive_avg_pool1d"));
  return adaptive_avg_pool2d(x, {1, output_size}).squeeze(-2);
}

Tensor adaptive_max_pool1d(const Tensor& input, std::int64_t output_size) {
  const Tensor x = as_2d(input, pool_message("adaptive_max_pool1d"));
  return adaptive_max_pool2d(x, {1, output_size}).squeeze(-2);
}

std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                           std::int64_t output_size) {
  const Tensor x = as_2d(input, pool_message("adaptive_max_pool1d"));
  // In a plane of one row, the position row * L + column is the step.
  const auto [y, index] = adaptive_max_pool2d_with_indices(x, {1, output_size});
  return {y.squeeze(-2), index.squeeze(-2)};
}

}  // namespace hetero
