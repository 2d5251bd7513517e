// SPDX-License-Identifier: Apache-2.0
#include <hetero/data/transforms.hpp>

#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/manipulation.hpp>
#include <hetero/ops.hpp>
#include <hetero/sdk/counter_rng.hpp>

namespace hetero::data {

std::uint64_t SampleRandom::next() { return rng::mix(seed, counter++); }

double SampleRandom::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::int64_t SampleRandom::below(std::int64_t n) {
  // n = 0 was a division by zero (SIGFPE), a negative n a negative "index".
  if (n < 1) throw ValueError("SampleRandom::below: n must be >= 1, got " + std::to_string(n));
  return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n));
}

namespace transforms {

Tensor normalize(const Tensor& x, const std::vector<double>& mean, const std::vector<double>& std) {
  if (!x.defined() || x.dim() < 3) throw ShapeError("normalize: expected an image [..., C, H, W]");
  if (!is_floating_point(x.dtype()))
    throw DTypeError("normalize: expected a floating image, got " +
                     std::string(dtype_name(x.dtype())));
  const std::int64_t c = x.size(-3);
  const auto per_channel = [&](const std::vector<double>& v, const char* what) {
    if (v.size() != 1 && static_cast<std::int64_t>(v.size()) != c)
      throw ValueError("normalize: " + std::string(what) + " has " + std::to_string(v.size()) +
                       " values for " + std::to_string(c) + " channels");
    std::vector<double> out(static_cast<std::size_t>(c));
    for (std::int64_t i = 0; i < c; ++i)
      out[static_cast<std::size_t>(i)] = v[v.size() == 1 ? 0 : static_cast<std::size_t>(i)];
    return from_vector(out, TensorOptions(x.device())).to(x.dtype()).reshape({c, 1, 1});
  };
  for (double s : std)
    if (s == 0)
      throw ValueError(
          "normalize: std evaluated to zero, leading to division by zero (as torchvision)");
  return (x - per_channel(mean, "mean")) / per_channel(std, "std");
}

Tensor random_crop(const Tensor& x, std::int64_t height, std::int64_t width, std::int64_t padding,
                   SampleRandom& random) {
  if (!x.defined() || x.dim() < 2) throw ShapeError("random_crop: expected an image [..., H, W]");
  if (padding < 0) throw ValueError("random_crop: padding must be >= 0");
  const std::int64_t h = x.size(-2), w = x.size(-1), ph = h + 2 * padding, pw = w + 2 * padding;
  if (height < 1 || width < 1 || height > ph || width > pw)
    throw ValueError("random_crop: Required crop size (" + std::to_string(height) + ", " +
                     std::to_string(width) + ") is larger than input image size (" +
                     std::to_string(ph) + ", " + std::to_string(pw) + ") (as torchvision)");
  const std::int64_t top = random.below(ph - height + 1), left = random.below(pw - width + 1);
  // The window in the padded image's coordinates; the image occupies [padding, padding + h).
  Shape shape = x.shape();
  shape[shape.size() - 2] = height;
  shape[shape.size() - 1] = width;
  Tensor out = zeros(shape, TensorOptions(x.device()).dtype(x.dtype()));
  const std::int64_t r0 = std::max(top, padding), r1 = std::min(top + height, padding + h);
  const std::int64_t c0 = std::max(left, padding), c1 = std::min(left + width, padding + w);
  if (r0 < r1 && c0 < c1)
    out.narrow(-2, r0 - top, r1 - r0)
        .narrow(-1, c0 - left, c1 - c0)
        .copy_(x.narrow(-2, r0 - padding, r1 - r0).narrow(-1, c0 - padding, c1 - c0));
  return out;
}

Tensor random_horizontal_flip(const Tensor& x, SampleRandom& random, double p) {
  if (!x.defined() || x.dim() < 1) throw ShapeError("random_horizontal_flip: expected an image");
  return random.uniform() < p ? flip(x, {-1}) : x;
}

}  // namespace transforms

TransformDataset::TransformDataset(std::shared_ptr<const Dataset> dataset, Transform transform,
                                   std::uint64_t seed)
    : dataset_(std::move(dataset)), transform_(std::move(transform)), seed_(seed) {
  if (!dataset_) throw ValueError("TransformDataset: null dataset");
  if (!transform_) throw ValueError("TransformDataset: empty transform");
}

Example TransformDataset::get(std::int64_t index) const {
  SampleRandom random{rng::mix(seed_, epoch_), static_cast<std::uint64_t>(index) << 20};
  return transform_(dataset_->get(index), random);
}

}  // namespace hetero::data
