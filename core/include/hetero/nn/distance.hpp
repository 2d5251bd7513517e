// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/distance.hpp
/// hetero::nn::CosineSimilarity, as torch.nn.CosineSimilarity: cosine_similarity of
/// <hetero/distance.hpp> as a layer of two inputs (no parameters).
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

}  // namespace hetero::nn
