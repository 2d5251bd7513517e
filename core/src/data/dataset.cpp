// SPDX-License-Identifier: Apache-2.0
#include <hetero/data/dataset.hpp>

#include <string>

#include <hetero/data/dataloader.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

namespace hetero::data {

TensorDataset::TensorDataset(std::vector<Tensor> tensors) : tensors_(std::move(tensors)) {
  if (tensors_.empty()) throw ValueError("TensorDataset: at least one tensor is needed");
  for (std::size_t k = 0; k < tensors_.size(); ++k) {
    if (!tensors_[k].defined() || tensors_[k].dim() == 0)
      throw ValueError("TensorDataset: tensor " + std::to_string(k) +
                       " is undefined or 0-d (samples run along the first dimension)");
    if (tensors_[k].size(0) != tensors_[0].size(0))
      throw ValueError("TensorDataset: Size mismatch between tensors: tensor " + std::to_string(k) +
                       " has " + std::to_string(tensors_[k].size(0)) + " samples, tensor 0 " +
                       std::to_string(tensors_[0].size(0)) + " (as torch)");
  }
}

std::vector<Tensor> Dataset::get_batch(const std::vector<std::int64_t>& indices) const {
  if (indices.empty()) throw ValueError("Dataset::get_batch: no indices");
  std::vector<Example> examples;
  examples.reserve(indices.size());
  for (const std::int64_t i : indices) examples.push_back(get(i));
  return collate(examples);
}

std::int64_t TensorDataset::size() const { return tensors_[0].size(0); }

namespace {

void check_index(std::int64_t index, std::int64_t size) {
  if (index < 0 || index >= size)
    throw IndexError("TensorDataset: index " + std::to_string(index) + " is out of range [0, " +
                     std::to_string(size) + ")");
}

}  // namespace

Example TensorDataset::get(std::int64_t index) const {
  check_index(index, size());
  Example out;
  for (const Tensor& t : tensors_) out.push_back(t[index]);
  return out;
}

std::vector<Tensor> TensorDataset::get_batch(const std::vector<std::int64_t>& indices) const {
  if (indices.empty()) throw ValueError("TensorDataset::get_batch: no indices");
  for (const std::int64_t i : indices) check_index(i, size());
  std::vector<Tensor> out;
  for (const Tensor& t : tensors_)
    out.push_back(index_select(t, 0, tensor(indices, TensorOptions(t.device()))));
  return out;
}

}  // namespace hetero::data
