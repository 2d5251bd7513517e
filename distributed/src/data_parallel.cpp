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

#include "gradient_reducer.hpp"

namespace hetero::distributed {
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
  // As DDP (issue #29): frozen parameters (requires_grad false) and non-floating ones
  // (counters, which cannot require grad) take no part: not reduced, not touched. Every
  // bucket carries which ranks had each gradient (Note [Gradient buckets]).
  detail::GradientReducer reducer(detail::trainable_parameters(module), bucket_bytes,
                                  "all_reduce_gradients");
  reducer.finish();
  return reducer.bucket_count();
}

}  // namespace hetero::distributed
