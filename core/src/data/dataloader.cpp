// SPDX-License-Identifier: Apache-2.0
// DataLoader: an Epoch holds the order and the batches built so far; worker w builds batches
// w, w + W, w + 2W, ... (each waits while prefetch_factor * W batches are ready and not yet
// taken), and the loop takes batch k when it is ready, so the order never depends on W.
#include <hetero/data/dataloader.hpp>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>
#include <hetero/sdk/counter_rng.hpp>

#include "../log.hpp"

namespace hetero::data {

Batch collate(const std::vector<Example>& examples) {
  if (examples.empty()) throw ValueError("collate: no examples");
  const std::size_t fields = examples[0].size();
  Batch out;
  for (std::size_t f = 0; f < fields; ++f) {
    std::vector<Tensor> column;
    for (const Example& e : examples) {
      if (e.size() != fields)
        throw ValueError("collate: examples have " + std::to_string(fields) + " and " +
                         std::to_string(e.size()) + " fields");
      column.push_back(e[f]);
    }
    out.push_back(stack(column));
  }
  return out;
}

namespace {

// The batch's pinned copy, or the batch where no backend has pinned memory (as torch, which
// then warns and leaves it).
Batch pinned(Batch b) {
  for (Tensor& t : b) {
    try {
      t = t.pin_memory();
    } catch (const DeviceUnavailableError&) {
      static std::once_flag warned;
      std::call_once(warned, [] {
        detail::log_warn(
            "DataLoader: pin_memory is set but no loaded backend has pinned memory; "
            "the batches stay in pageable memory");
      });
      return b;
    }
  }
  return b;
}

}  // namespace

class DataLoader::Epoch {
 public:
  Epoch(std::shared_ptr<const Dataset> dataset, const DataLoaderOptions& options,
        std::vector<std::int64_t> order, std::int64_t batches)
      : dataset_(std::move(dataset)),
        options_(options),
        order_(std::move(order)),
        batches_(batches) {
    // Worker w builds batches w, w + num_workers, ...: one beyond the batch count would have
    // none, so none is started.
    const std::int64_t started = std::min<std::int64_t>(options_.num_workers, batches_);
    try {
      for (int w = 0; w < started; ++w) workers_.emplace_back([this, w] { work(w); });
    } catch (const std::system_error& e) {  // the system's thread limit
      stop_workers();
      throw Error("DataLoader: could not start worker thread " + std::to_string(workers_.size()) +
                  " of " + std::to_string(started) + " (num_workers " +
                  std::to_string(options_.num_workers) + "): " + e.what());
    }
  }
  ~Epoch() { stop_workers(); }
  Epoch(const Epoch&) = delete;
  Epoch& operator=(const Epoch&) = delete;

  std::int64_t batches() const { return batches_; }

  // Batch k (the loop's thread): built here without workers, else waited for.
  Batch take(std::int64_t k) {
    Batch b;
    if (workers_.empty()) {
      b = build(k);
    } else {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return ready_.count(k) != 0; });
      auto node = ready_.extract(k);
      taken_ = k + 1;
      lock.unlock();
      cv_.notify_all();
      if (node.mapped().error) std::rethrow_exception(node.mapped().error);
      b = std::move(node.mapped().batch);
    }
    if (options_.device)
      for (Tensor& t : b) t = t.to(*options_.device);
    return b;
  }

 private:
  struct Slot {
    Batch batch;
    std::exception_ptr error;
  };

  Batch build(std::int64_t k) const {
    const std::int64_t first = k * options_.batch_size;
    const std::int64_t last = std::min<std::int64_t>(first + options_.batch_size,
                                                     static_cast<std::int64_t>(order_.size()));
    Batch b = dataset_->get_batch(
        std::vector<std::int64_t>(order_.begin() + first, order_.begin() + last));
    return options_.pin_memory ? pinned(std::move(b)) : b;
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  void work(int w) {
    const std::int64_t step = options_.num_workers;
    const std::int64_t ahead = static_cast<std::int64_t>(options_.prefetch_factor) * step;
    for (std::int64_t k = w; k < batches_; k += step) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || k < taken_ + ahead; });
        if (stop_) return;
      }
      Slot slot;
      try {
        slot.batch = build(k);
      } catch (...) {
        slot.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ready_.emplace(k, std::move(slot));
      }
      cv_.notify_all();
    }
  }

  std::shared_ptr<const Dataset> dataset_;
  DataLoaderOptions options_;
  std::vector<std::int64_t> order_;
  std::int64_t batches_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::int64_t, Slot> ready_;
  std::int64_t taken_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(options) {
  if (!dataset_) throw ValueError("DataLoader: null dataset");
  if (options_.batch_size < 1)
    throw ValueError(
        "DataLoader: batch_size should be a positive integer value, but got batch_size=" +
        std::to_string(options_.batch_size) + " (as torch)");
  if (options_.num_workers < 0)
    throw ValueError("DataLoader: num_workers option should be non-negative (as torch)");
  if (options_.prefetch_factor < 1)
    throw ValueError("DataLoader: prefetch_factor must be >= 1, got " +
                     std::to_string(options_.prefetch_factor));
  if (options_.shuffle && !options_.generator) {
    // Seeded by one draw of the cpu default generator (torch's RandomSampler draws its seed
    // from the default generator too): manual_seed() makes the orders reproducible.
    const GeneratorState s = default_generator(Device::cpu()).reserve(1);
    own_generator_ = std::make_unique<Generator>(rng::mix(s.seed, s.offset));
  }
}

DataLoader::~DataLoader() = default;

namespace {

// The dataset's size() after torch's check of __len__ (ValueError when negative).
std::int64_t checked_size(const Dataset& d) {
  const std::int64_t n = d.size();
  if (n < 0)
    throw ValueError("DataLoader: the dataset's size() should return >= 0, got " +
                     std::to_string(n) + " (torch: \"__len__() should return >= 0\")");
  return n;
}

}  // namespace

std::int64_t DataLoader::size() const {
  const std::int64_t n = checked_size(*dataset_), b = options_.batch_size;
  // Rounded up without n + b - 1, which overflows for a batch_size near 2^63.
  return n / b + (!options_.drop_last && n % b != 0 ? 1 : 0);
}

DataLoader::Iterator DataLoader::begin() {
  epoch_.reset();  // ends the previous epoch's workers first
  const std::int64_t n = checked_size(*dataset_);
  std::vector<std::int64_t> order;
  if (options_.shuffle) {
    Generator& g = options_.generator ? *options_.generator : *own_generator_;
    order = randperm(n, g).to_vector<std::int64_t>();
  } else {
    order.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  }
  epoch_ = std::make_shared<Epoch>(dataset_, options_, std::move(order), size());
  return Iterator(epoch_, 0);
}

DataLoader::Iterator DataLoader::end() { return Iterator(nullptr, size()); }

DataLoader::Iterator::Iterator(std::shared_ptr<Epoch> epoch, std::int64_t index)
    : epoch_(std::move(epoch)), index_(index) {
  if (epoch_) fetch();
}

void DataLoader::Iterator::fetch() {
  if (index_ < epoch_->batches()) current_ = epoch_->take(index_);
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  ++index_;
  current_.clear();
  fetch();
  return *this;
}

}  // namespace hetero::data
