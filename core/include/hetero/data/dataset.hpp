// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file data/dataset.hpp
/// hetero::data::Dataset — a map-style dataset, as torch.utils.data.Dataset: size() samples,
/// each get(i) an Example (the sample's fields, torch's tuple: image and label, ...).
/// DataLoader calls get() from its worker threads, so get() must be safe to call
/// concurrently (TensorDataset's is: it only makes views).
#include <cstdint>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero::data {

/// One sample's fields, in order (torch's tuple).
using Example = std::vector<Tensor>;

class HETERO_API Dataset {
 public:
  virtual ~Dataset() = default;
  /// The number of samples (torch's __len__).
  virtual std::int64_t size() const = 0;
  /// Sample `index` in [0, size()) (torch's __getitem__); IndexError outside. Called
  /// concurrently by DataLoader's workers.
  virtual Example get(std::int64_t index) const = 0;
};

/// Samples along the first dimension of tensors of one length, as
/// torch.utils.data.TensorDataset: get(i) = {t[i] for each t} (views, no copy).
class HETERO_API TensorDataset : public Dataset {
 public:
  /// ValueError for no tensors, an undefined or 0-d one, or first dimensions that differ
  /// (torch's "Size mismatch between tensors").
  explicit TensorDataset(std::vector<Tensor> tensors);
  std::int64_t size() const override;
  Example get(std::int64_t index) const override;
  const std::vector<Tensor>& tensors() const noexcept { return tensors_; }

 private:
  std::vector<Tensor> tensors_;
};

}  // namespace hetero::data
