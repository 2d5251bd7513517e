// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/distance.hpp>

#include <hetero/distance.hpp>
#include <hetero/error.hpp>

namespace hetero::nn {

Tensor CosineSimilarity::forward(const Tensor& x1, const Tensor& x2) {
  return cosine_similarity(x1, x2, dim_, eps_);
}

Tensor CosineSimilarity::forward(const Tensor&) {
  throw ValueError("CosineSimilarity: the layer takes two inputs; call forward(x1, x2)");
}

Tensor PairwiseDistance::forward(const Tensor& x1, const Tensor& x2) {
  return pairwise_distance(x1, x2, p_, eps_, keepdim_);
}

Tensor PairwiseDistance::forward(const Tensor&) {
  throw ValueError("PairwiseDistance: the layer takes two inputs; call forward(x1, x2)");
}

}  // namespace hetero::nn
