// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file data/transforms.hpp
/// Image transforms of a sample [C, H, W] (as torchvision.transforms: Normalize, RandomCrop
/// with padding, RandomHorizontalFlip) and TransformDataset, which applies a function to
/// each sample. The random transforms draw from a SampleRandom: a Philox stream that is a
/// pure function of (seed, epoch, sample index), so a sample's augmentation is the same
/// whatever DataLoader worker builds it, and a resumed run repeats it bit for bit.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <hetero/data/dataset.hpp>
#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero::data {

/// The random draws of one sample: Philox4x32-10 (hetero::rng::mix) of `seed` at counters
/// counter, counter + 1, ...
struct HETERO_API SampleRandom {
  std::uint64_t seed = 0;     ///< the stream's key
  std::uint64_t counter = 0;  ///< the next draw's counter (each draw advances it)
  /// 64 random bits.
  std::uint64_t next();
  /// Uniform in [0, 1) (53 bits).
  double uniform();
  /// Uniform integer in [0, n); ValueError for n < 1.
  std::int64_t below(std::int64_t n);
};

namespace transforms {

/// (x - mean[c]) / std[c] for each channel c of x [C, H, W] (or [..., C, H, W]), in x's
/// floating dtype, as torchvision's Normalize. ValueError unless mean and std have C values
/// each (or one, for every channel) and no std is 0; DTypeError for a non-floating x.
HETERO_API Tensor normalize(const Tensor& x, const std::vector<double>& mean,
                            const std::vector<double>& std);
/// A height x width window of x [..., H, W] padded with `padding` zeros on every side, at a
/// uniformly drawn position, as torchvision's RandomCrop(size, padding) (padding_mode
/// "constant", fill 0). ValueError when the window is larger than the padded image or
/// padding < 0.
HETERO_API Tensor random_crop(const Tensor& x, std::int64_t height, std::int64_t width,
                              std::int64_t padding, SampleRandom& random);
/// x flipped along its last dimension with probability p, as torchvision's
/// RandomHorizontalFlip(p) (one draw either way).
HETERO_API Tensor random_horizontal_flip(const Tensor& x, SampleRandom& random, double p = 0.5);

}  // namespace transforms

/// `dataset` with `transform` applied to each sample: get(i) = transform(dataset.get(i),
/// random) with random = SampleRandom{mix(seed, epoch), i * 2^20}. set_epoch() changes the
/// draws for the next epoch (as DistributedSampler.set_epoch); call it before each epoch.
/// The transform is called from DataLoader's workers concurrently.
class HETERO_API TransformDataset : public Dataset {
 public:
  /// The per-sample function: the sample and its draws in, the transformed sample out.
  using Transform = std::function<Example(Example, SampleRandom&)>;
  /// ValueError for a null dataset or an empty transform.
  TransformDataset(std::shared_ptr<const Dataset> dataset, Transform transform,
                   std::uint64_t seed = 0);
  std::int64_t size() const override { return dataset_->size(); }
  Example get(std::int64_t index) const override;
  /// The epoch the draws are keyed by (not while a DataLoader is iterating it).
  void set_epoch(std::uint64_t epoch) noexcept { epoch_ = epoch; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  Transform transform_;
  std::uint64_t seed_;
  std::uint64_t epoch_ = 0;
};

}  // namespace hetero::data
