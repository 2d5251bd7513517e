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

/// A map-style dataset, as torch.utils.data.Dataset: samples by index in [0, size())
/// (see the file comment). Read by DataLoader's workers concurrently: get() and get_batch()
/// must be safe to call from several threads.
class HETERO_API Dataset {
 public:
  virtual ~Dataset() = default;
  /// The number of samples (torch's __len__).
  virtual std::int64_t size() const = 0;
  /// Sample `index` in [0, size()) (torch's __getitem__); IndexError outside. Called
  /// concurrently by DataLoader's workers.
  virtual Example get(std::int64_t index) const = 0;
  /// The samples `indices` (each in [0, size()), repeats allowed) as one batch: each field
  /// stacked along a new first dimension, as torch's default_collate of get(i) for each i
  /// (and torch 2's Dataset.__getitems__, which lets a dataset fetch a batch at once). The
  /// default calls get() and collate(); a dataset that can gather a batch in one operation
  /// overrides it (TensorDataset). DataLoader calls it from its workers (concurrently). Throws
  /// as get() and collate(); ValueError for no indices.
  virtual std::vector<Tensor> get_batch(const std::vector<std::int64_t>& indices) const;
};

/// Samples along the first dimension of tensors of one length, as
/// torch.utils.data.TensorDataset: get(i) = {t[i] for each t} (views, no copy), and a batch
/// = {index_select(t, 0, indices) for each t}: one gather per field instead of a copy per
/// sample.
class HETERO_API TensorDataset : public Dataset {
 public:
  /// ValueError for no tensors, an undefined or 0-d one, or first dimensions that differ
  /// (torch's "Size mismatch between tensors").
  explicit TensorDataset(std::vector<Tensor> tensors);
  std::int64_t size() const override;
  Example get(std::int64_t index) const override;
  /// Each tensor's rows `indices`, gathered at once (equal to stacking get(i) for each i);
  /// IndexError naming the first index out of range.
  std::vector<Tensor> get_batch(const std::vector<std::int64_t>& indices) const override;
  /// The tensors, as given.
  const std::vector<Tensor>& tensors() const noexcept { return tensors_; }

 private:
  std::vector<Tensor> tensors_;
};

}  // namespace hetero::data
