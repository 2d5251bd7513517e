// SPDX-License-Identifier: Apache-2.0
// broadcast_parameters and all_reduce_gradients: DistributedDataParallel's two
// collectives, on the tensors of a Module.
#include <hetero/distributed/data_parallel.hpp>

#include <fmt/format.h>

#include <hetero/autograd.hpp>
#include <hetero/distributed/collectives.hpp>
#include <hetero/distributed/distributed_error.hpp>
#include <hetero/distributed/process_group.hpp>
#include <hetero/factories.hpp>

namespace hetero::distributed {
namespace {

// A run of parameters whose gradients share one flat buffer: same device and dtype,
// at most the bucket's bytes (or one larger parameter).
struct Bucket {
  std::vector<Tensor> parameters;
  std::int64_t elements = 0;
};

std::vector<Bucket> make_buckets(const std::vector<Tensor>& parameters, std::size_t bucket_bytes) {
  std::vector<Bucket> buckets;
  for (const Tensor& p : parameters) {
    const bool fits =
        !buckets.empty() && buckets.back().parameters.front().device() == p.device() &&
        buckets.back().parameters.front().dtype() == p.dtype() &&
        (static_cast<std::size_t>(buckets.back().elements) + static_cast<std::size_t>(p.numel())) *
                element_size(p.dtype()) <=
            bucket_bytes;
    if (!fits) buckets.emplace_back();
    buckets.back().parameters.push_back(p);
    buckets.back().elements += p.numel();
  }
  return buckets;
}

}  // namespace

void broadcast_parameters(nn::Module& module, int root) {
  NoGradGuard no_grad;
  auto broadcast_all = [root](const nn::NamedTensors& tensors) {
    for (const auto& [name, t] : tensors) {
      Tensor target = t;
      try {
        broadcast(target, root);
      } catch (const DistributedError& e) {
        throw DistributedError(fmt::format("broadcast_parameters: '{}': {}", name, e.what()));
      }
    }
  };
  broadcast_all(module.named_parameters());
  broadcast_all(module.named_buffers());
}

std::size_t all_reduce_gradients(nn::Module& module, std::size_t bucket_bytes) {
  NoGradGuard no_grad;
  // As DDP (issue #29): frozen parameters (requires_grad false) and non-floating ones
  // (counters, which cannot require grad) take no part: not reduced, not touched.
  std::vector<Tensor> trainable;
  for (const Tensor& p : module.parameters())
    if (p.requires_grad() && is_floating_point(p.dtype())) trainable.push_back(p);
  // Which have a gradient on some rank (one small all_reduce(max) of a mask): a parameter
  // without one on every rank keeps no gradient, as torch leaves it None (a zero gradient
  // would make momentum and weight decay drift); one with a gradient somewhere gets the
  // mean, a rank without one contributing zeros.
  std::vector<std::uint8_t> has(trainable.size());
  for (std::size_t i = 0; i < trainable.size(); ++i) has[i] = trainable[i].grad().defined() ? 1 : 0;
  if (world_size() > 1 && !has.empty()) {
    Tensor mask = from_vector(has);
    all_reduce(mask, ReduceOp::max);
    has = mask.to_vector<std::uint8_t>();
  }
  std::vector<Tensor> reduced;
  for (std::size_t i = 0; i < trainable.size(); ++i)
    if (has[i]) reduced.push_back(trainable[i]);
  const auto buckets = make_buckets(reduced, bucket_bytes);
  // The mean over one process is its own gradient: nothing to pack, reduce or copy back.
  if (world_size() == 1) return buckets.size();
  for (const Bucket& b : buckets) {
    const Tensor& first = b.parameters.front();
    Tensor flat = empty({b.elements}, TensorOptions(first.device()).dtype(first.dtype()));
    std::int64_t offset = 0;
    for (const Tensor& p : b.parameters) {
      Tensor slot = flat.narrow(0, offset, p.numel()).view(p.shape());
      if (p.grad().defined())
        slot.copy_(p.grad());
      else
        slot.copy_(zeros_like(p));
      offset += p.numel();
    }
    all_reduce(flat, ReduceOp::avg);
    offset = 0;
    for (Tensor p : b.parameters) {
      const Tensor mean = flat.narrow(0, offset, p.numel()).view(p.shape());
      if (p.grad().defined())
        p.mutable_grad().copy_(mean);
      else
        p.mutable_grad() = mean.clone();
      offset += p.numel();
    }
  }
  return buckets.size();
}

}  // namespace hetero::distributed
