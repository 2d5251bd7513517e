// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/distance.hpp
/// hetero::nn::CosineSimilarity and PairwiseDistance, as torch.nn's: cosine_similarity and
/// pairwise_distance of <hetero/distance.hpp> as layers of two inputs (no parameters).
#include <cstdint>

#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// cosine_similarity(x1, x2, dim, eps), as torch.nn.CosineSimilarity (defaults 1 and 1e-8).
class HETERO_API CosineSimilarity : public Module {
 public:
  /// Along `dim` (checked at forward()), norms clamped to `eps`.
  explicit CosineSimilarity(std::int64_t dim = 1, double eps = 1e-8) : dim_(dim), eps_(eps) {}
  /// cosine_similarity(x1, x2, dim, eps); shapes, dtypes and errors as that function's.
  Tensor forward(const Tensor& x1, const Tensor& x2);
  /// forward(x1, x2).
  Tensor operator()(const Tensor& x1, const Tensor& x2) { return forward(x1, x2); }
  /// ValueError: the layer takes two inputs (call forward(x1, x2)).
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t dim_;
  double eps_;
};

/// pairwise_distance(x1, x2, p, eps, keepdim), as torch.nn.PairwiseDistance (defaults 2,
/// 1e-6, false).
class HETERO_API PairwiseDistance : public Module {
 public:
  /// The `p`-norm of x1 - x2 + eps along the last dimension.
  explicit PairwiseDistance(double p = 2.0, double eps = 1e-6, bool keepdim = false)
      : p_(p), eps_(eps), keepdim_(keepdim) {}
  /// pairwise_distance(x1, x2, p, eps, keepdim); shapes, dtypes and errors as that function's.
  Tensor forward(const Tensor& x1, const Tensor& x2);
  /// forward(x1, x2).
  Tensor operator()(const Tensor& x1, const Tensor& x2) { return forward(x1, x2); }
  /// ValueError: the layer takes two inputs (call forward(x1, x2)).
  Tensor forward(const Tensor& x) override;

 private:
  double p_, eps_;
  bool keepdim_;
};

}  // namespace hetero::nn
