// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/dropout.hpp>

#include <cmath>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"

namespace hetero::nn {

Dropout::Dropout(double p) : p_(p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError("Dropout: dropout probability has to be between 0 and 1, but got " +
                     std::to_string(p) + " (as torch)");
}

Tensor dropout(const Tensor& x, double p, bool training) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError("dropout probability has to be between 0 and 1, but got " + std::to_string(p) +
                     " (as torch)");
  if (!training || p == 0.0) return x;
  if (p == 1.0) return x * 0;  // zeros of x's dtype (an integer 0 keeps integers, as torch)
  if (!is_floating_point(x.dtype()))
    throw DTypeError("dropout: the scaled result is floating, and cannot be written to x's " +
                     std::string(dtype_name(x.dtype())) +
                     " (as torch: \"result type Float can't be cast to the desired output type\")");
  // keep = 1 where u > p (probability 1 - p), as a 0/1 tensor: the cast to bool is
  // `v != 0` and relu(u - p) is non-zero exactly when u > p.
  const Tensor u = rand(x.shape(), TensorOptions(x.device()).dtype(DType::float32));
  const Tensor keep = relu(u - p).to(DType::bool_).to(x.dtype());
  return x * keep * (1.0 / (1.0 - p));
}

Tensor Dropout::forward(const Tensor& x) { return dropout(x, p_, is_training()); }

namespace {

// ValueError unless 0 <= p <= 1, as torch's dropout functions.
void check_p(double p, const char* who) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError(std::string(who) +
                     ": dropout probability has to be between 0 and 1, but got " +
                     std::to_string(p) + " (as torch)");
}

// DTypeError naming `who` unless x is floating (a scaled result has to be).
void check_floating(const Tensor& x, const char* who) {
  if (!is_floating_point(x.dtype()))
    throw DTypeError(std::string(who) +
                     ": the scaled result is floating, and cannot be written to " + "x's " +
                     std::string(dtype_name(x.dtype())) +
                     " (as torch: \"result type Float can't be cast to the desired output type\")");
}

// torch's noise for x: [N, C, 1, ...] for feature dropout (ShapeError below 2 dimensions),
// else x's shape; 1 with probability 1 - p, else 0, in x's dtype.
Tensor keep_mask(const Tensor& x, double p, bool feature, const char* who) {
  Shape shape = x.shape();
  if (feature) {
    if (x.dim() < 2)
      throw ShapeError(std::string(who) +
                       ": Feature dropout requires at least 2 dimensions in the input, got " +
                       detail::shape_str(x.shape()) + " (as torch)");
    for (std::size_t d = 2; d < shape.size(); ++d) shape[d] = 1;
  }
  // 1 where u > p (probability 1 - p): relu(u - p) is non-zero exactly then.
  const Tensor u = rand(shape, TensorOptions(x.device()).dtype(DType::float32));
  return relu(u - p).to(DType::bool_).to(x.dtype());
}

}  // namespace

Tensor feature_dropout(const Tensor& x, double p, int spatial_dims, bool training) {
  const char* names[] = {"dropout1d", "dropout2d", "dropout3d"};
  if (spatial_dims < 1 || spatial_dims > 3)
    throw ValueError("feature_dropout: spatial_dims must be 1, 2 or 3, got " +
                     std::to_string(spatial_dims));
  const char* who = names[spatial_dims - 1];
  check_p(p, who);
  detail::impl_of(x, who);
  const std::int64_t batched = spatial_dims + 2;
  if (x.dim() != batched && x.dim() != batched - 1)
    throw ShapeError(std::string(who) + ": Expected " + std::to_string(batched - 1) + "D or " +
                     std::to_string(batched) + "D input, but received a " +
                     std::to_string(x.dim()) + "D input (channel-wise dropout of a channel " +
                     "dimension, " + std::to_string(spatial_dims) +
                     " spatial ones and an optional batch dimension)");
  if (!training || p == 0.0 || x.numel() == 0) return x;
  if (p == 1.0) return x * 0;
  check_floating(x, who);
  const Tensor xb = x.dim() == batched ? x : x.unsqueeze(0);
  const Tensor y = xb * (keep_mask(xb, p, true, who) * (1.0 / (1.0 - p)));
  return x.dim() == batched ? y : y.squeeze(0);
}

Tensor alpha_dropout(const Tensor& x, double p, bool training, bool feature) {
  const char* who = feature ? "feature_alpha_dropout" : "alpha_dropout";
  check_p(p, who);
  detail::impl_of(x, who);
  if (!training || p == 0.0 || x.numel() == 0) return x;
  if (p == 1.0) return x * 0;
  check_floating(x, who);
  // torch's _dropout_impl: noise n in {0, 1}; x n a + (n - 1) alpha a + alpha a p.
  constexpr double kAlpha = 1.7580993408473766;
  const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  const Tensor keep = keep_mask(x, p, feature, who);
  const Tensor b = (keep - 1) * (kAlpha * a) + kAlpha * a * p;
  return x * (keep * a) + b;
}

FeatureDropout::FeatureDropout(int spatial_dims, double p) : dims_(spatial_dims), p_(p) {
  check_p(p, "FeatureDropout");
}

Tensor FeatureDropout::forward(const Tensor& x) {
  return feature_dropout(x, p_, dims_, is_training());
}

AlphaDropout::AlphaDropout(double p, bool feature) : p_(p), feature_(feature) {
  check_p(p, feature ? "FeatureAlphaDropout" : "AlphaDropout");
}

Tensor AlphaDropout::forward(const Tensor& x) {
  return alpha_dropout(x, p_, is_training(), feature_);
}

}  // namespace hetero::nn
