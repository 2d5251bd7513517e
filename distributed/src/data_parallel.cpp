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
  const auto parameters = module.parameters();
  const auto buckets = make_buckets(parameters, bucket_bytes);
  if (world_size() == 1) {
    // The mean over one process is its own gradient: nothing to pack, reduce or copy
    // back (a missing gradient still becomes zeros, as below).
    for (Tensor p : parameters)
      if (!p.grad().defined()) p.mutable_grad() = zeros_like(p);
    return buckets.size();
  }
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
