// SPDX-License-Identifier: Apache-2.0
// multinomial (<hetero/factories.hpp>): inverse-CDF sampling composed from cumsum, rand,
// comparisons and sum, so every backend runs it.
#include <cmath>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/manipulation.hpp>
#include <hetero/ops.hpp>

#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

namespace {

// One index per row of the weights w [B, V] (float64): the count of cumulative sums <= u,
// u uniform on [0, row sum).
Tensor draw(const Tensor& w, std::int64_t samples, Generator& generator) {
  const std::int64_t rows = w.size(0), v = w.size(1);
  const Tensor cdf = cumsum(w, 1);
  const Tensor total = cdf.narrow(1, v - 1, 1);  // [B, 1]
  const Tensor u =
      rand({rows, samples}, generator, TensorOptions(w.device()).dtype(DType::float64)) * total;
  const Tensor below = le(cdf.unsqueeze(1), u.unsqueeze(2));  // [B, samples, V]
  // (u < total, so the count is at most V - 1; the clamp guards the last rounding)
  return clamp(sum(below.to(DType::int64), 2), Number(std::int64_t{0}), Number(v - 1));
}

}  // namespace

Tensor multinomial(const Tensor& probs, std::int64_t num_samples, bool replacement,
                   Generator* generator) {
  const detail::prof::Scope op_scope("multinomial", probs);
  detail::impl_of(probs, "multinomial");
  if (probs.dim() != 1 && probs.dim() != 2)
    throw ValueError("multinomial: prob_dist must be 1 or 2 dim, got shape " +
                     detail::shape_str(probs.shape()) + " (as torch)");
  if (!is_floating_point(probs.dtype()))
    throw DTypeError("multinomial only supports floating-point dtypes for input, got " +
                     std::string(dtype_name(probs.dtype())) + " (as torch)");
  if (num_samples <= 0)
    throw ValueError("multinomial: cannot sample n_sample <= 0 samples (as torch)");
  const std::int64_t v = probs.size(-1);
  if (!replacement && num_samples > v)
    throw ValueError(
        "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without "
        "replacement (" +
        std::to_string(num_samples) + " > " + std::to_string(v) + ", as torch)");
  if (v == 0) throw ValueError("multinomial: invalid multinomial distribution (no categories)");
  const Tensor w0 = (probs.dim() == 1 ? probs.unsqueeze(0) : probs).to(DType::float64);
  if (w0.size(0) == 0)
    return zeros(probs.dim() == 1 ? Shape{num_samples} : Shape{0, num_samples},
                 TensorOptions(probs.device()).dtype(DType::int64));
  const double lowest = min(w0).item<double>();
  if (!std::isfinite(max(w0).item<double>()) || !(lowest >= 0))
    throw ValueError(
        "multinomial: probability tensor contains either `inf`, `nan` or element < 0 (as torch)");
  if (!(min(sum(w0, 1)).item<double>() > 0))
    throw ValueError(
        "multinomial: invalid multinomial distribution (sum of probabilities <= 0) (as torch)");
  if (!replacement && min(sum(gt(w0, 0.0).to(DType::int64), 1)).item<std::int64_t>() < num_samples)
    throw ValueError(
        "multinomial: invalid multinomial distribution (with replacement=False, not "
        "enough non-negative category to sample) (as torch)");
  Generator& g = generator ? *generator : default_generator(probs.device());
  Tensor out;
  if (replacement) {
    out = draw(w0, num_samples, g);
  } else {  // one at a time, each from the weights left
    Tensor w = w0;
    std::vector<Tensor> picks;
    for (std::int64_t s = 0; s < num_samples; ++s) {
      const Tensor pick = draw(w, 1, g);  // [B, 1]
      picks.push_back(pick);
      if (s + 1 < num_samples)
        w = masked_fill(w, one_hot(pick.squeeze(1), v).to(DType::bool_), 0.0);
    }
    out = cat(picks, 1);
  }
  return probs.dim() == 1 ? out.squeeze(0) : out;
}

}  // namespace hetero
