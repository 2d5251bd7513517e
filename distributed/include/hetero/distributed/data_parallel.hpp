// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed/data_parallel.hpp
/// Data-parallel training of a Module, as torch's DistributedDataParallel does it: every
/// rank holds a replica, starts from rank 0's parameters, computes gradients on its own
/// shard of each batch, and averages the gradients before the optimizer step, so the
/// replicas stay identical.
///
///   broadcast_parameters(net);                     // once, after building the model
///   for (batch of this rank's shard) {
///     loss = criterion(net(x), y); sgd.zero_grad(); loss.backward();
///     all_reduce_gradients(net);                   // the DDP step
///     sgd.step();
///   }
///
/// Here gradients are averaged after backward(); DistributedDataParallel
/// (distributed_data_parallel.hpp) overlaps the averaging with backward().
#include <cstddef>

#include <hetero/export.hpp>
#include <hetero/nn/module.hpp>

namespace hetero::distributed {

/// DistributedDataParallel's default bucket_cap_mb: 25 MiB.
inline constexpr std::size_t default_bucket_bytes = std::size_t{25} << 20;

/// Overwrites every parameter and buffer of `module` with rank `root`'s, in place on
/// their devices, as DDP's constructor does. The ranks' modules must have the same
/// parameters (names, shapes, dtypes): DistributedError otherwise.
HETERO_API void broadcast_parameters(nn::Module& module, int root = 0);

/// Replaces each parameter's gradient by the mean of all ranks' gradients. Gradients
/// are packed into flat buckets of at most `bucket_bytes` (one per run of parameters
/// of the same device and dtype; a larger parameter gets a bucket of its own), each
/// bucket one all_reduce on the gradients' device, as DDP's bucketing (Note [Gradient
/// buckets], distributed/src/gradient_reducer.hpp): float32 and float64 gradients are
/// multiplied by 1 / world size while they are copied into the bucket and then summed, as
/// torch's reducer (exactly the sum divided by the world size when it is a power of two;
/// Note [Dividing by the world size]), 16-bit ones averaged by all_reduce(avg). Afterwards
/// each new gradient is a view of its bucket, as torch's DDP with
/// gradient_as_bucket_view=True (no pass copies the means out); each call fills new
/// buckets, so gradient tensors held from an earlier call keep their values (and keep their
/// whole bucket, up to `bucket_bytes`, allocated while any of them lives). As DDP, frozen
/// parameters (requires_grad false) and non-floating ones are left alone, and a parameter without a
/// gradient on any rank keeps none (torch's None); one without a gradient on this rank
/// only contributes zeros and receives the mean (each bucket carries one presence element
/// per parameter, so no extra collective finds out which). Returns the number of buckets
/// (gradient all_reduce calls; in a group of one process, where the mean is the gradient
/// itself, nothing is packed or reduced and the gradients stay as they are).
/// DistributedError without a group. DistributedDataParallel
/// (distributed_data_parallel.hpp) does the same overlapped with backward().
HETERO_API std::size_t all_reduce_gradients(nn::Module& module,
                                            std::size_t bucket_bytes = default_bucket_bytes);

}  // namespace hetero::distributed
