// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file data/dataloader.hpp
/// hetero::data::DataLoader — batches of a Dataset, as torch.utils.data.DataLoader with the
/// default collate: each field of batch_size samples stacked along a new first dimension.
/// Each iteration (begin()) is one epoch: with `shuffle`, a fresh permutation from the
/// generator (randperm), else in order; with num_workers > 0, worker threads build the
/// batches ahead of the loop (at most prefetch_factor per worker waiting), and the loop
/// receives them in order, so the batches are the same whatever num_workers is. An
/// exception in get() reaches the loop at that batch, as torch's. With pin_memory the
/// batches are copied to pinned host memory (where a loaded backend has it; otherwise they
/// stay in pageable memory), and with `device` each batch is moved there when the loop
/// receives it: from pinned memory that copy is queued without waiting, so it overlaps the
/// previous step's kernels.
///
/// Thread-safety: one loop at a time per DataLoader (a new begin() ends the previous epoch).
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <hetero/data/dataset.hpp>
#include <hetero/device.hpp>
#include <hetero/export.hpp>
#include <hetero/generator.hpp>

namespace hetero::data {

/// DataLoader's arguments, torch's names and defaults.
struct DataLoaderOptions {
  std::int64_t batch_size = 1;  ///< >= 1
  bool shuffle = false;         ///< a new random order each epoch (else the dataset's order)
  bool drop_last = false;       ///< drop the last batch when smaller than batch_size
  int num_workers = 0;          ///< 0: batches built in the loop's thread
  int prefetch_factor = 2;      ///< batches waiting per worker, >= 1
  bool pin_memory = false;      ///< batches in pinned host memory (see the file comment)
  std::optional<Device> device = std::nullopt;  ///< where each batch goes (hetero's addition)
  /// Draws the shuffle order; null: a generator the loader owns, seeded once from the cpu
  /// default generator (so manual_seed() makes the orders reproducible). Not owned; must
  /// outlive the loader.
  Generator* generator = nullptr;
};

/// A batch: each Example field of its samples stacked (torch's default_collate).
using Batch = std::vector<Tensor>;

/// default_collate for a list of examples: field k of the batch is stack of field k of
/// every example. ValueError for an empty list or examples with different field counts;
/// the errors of stack for shapes that differ.
HETERO_API Batch collate(const std::vector<Example>& examples);

/// Batches of a Dataset, epoch by epoch (see the file comment):
///
///     for (const Batch& b : loader) { Tensor x = b[0], y = b[1]; ... }
class HETERO_API DataLoader {
 public:
  /// ValueError for a null dataset, batch_size < 1, num_workers < 0 or prefetch_factor < 1.
  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  /// Batches per epoch (torch's len(loader)): ceil(dataset size / batch_size), or the floor
  /// with drop_last. ValueError when the dataset's size() is negative (torch's "__len__()
  /// should return >= 0").
  std::int64_t size() const;

  class Epoch;
  /// An input iterator over one epoch's batches; the loop's thread only.
  class HETERO_API Iterator {
   public:
    /// The current batch (valid until the next ++).
    /// @{
    const Batch& operator*() const { return current_; }
    const Batch* operator->() const { return &current_; }
    /// @}
    /// The next batch; rethrows what building it threw.
    Iterator& operator++();
    /// Same position in the epoch (the end is the position size()).
    /// @{
    bool operator==(const Iterator& other) const { return index_ == other.index_; }
    bool operator!=(const Iterator& other) const { return index_ != other.index_; }
    /// @}

   private:
    friend class DataLoader;
    Iterator(std::shared_ptr<Epoch> epoch, std::int64_t index);
    void fetch();
    std::shared_ptr<Epoch> epoch_;
    std::int64_t index_;
    Batch current_;
  };
  /// Starts an epoch (ending the previous one): a new order when shuffling. ValueError as
  /// size().
  Iterator begin();
  /// The position after the epoch's last batch.
  Iterator end();

 private:
  std::shared_ptr<const Dataset> dataset_;
  DataLoaderOptions options_;
  std::unique_ptr<Generator> own_generator_;
  std::shared_ptr<Epoch> epoch_;
};

}  // namespace hetero::data
