// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed/collectives.hpp
/// Collectives on tensors, in place, as torch.distributed: every rank calls the same
/// collective, in the same order, with tensors of the same shape and dtype (checked, see
/// ProcessGroupOptions::check_consistency). Tensors may live on any device and be
/// non-contiguous views: contiguous cpu tensors go to MPI without a copy; others are
/// staged through a host buffer, pinned where a loaded backend offers pinned memory.
/// float16 and bfloat16 are reduced in float32 (converted back once); bool reduces as
/// logical or (sum, max) and logical and (product, min). Every call blocks until its result is in
/// the tensor. Errors: DistributedError (no group, ranks disagree, MPI failure, timeout);
/// ShapeError / DTypeError for local arguments, thrown before any communication (the
/// other ranks then wait in the collective until they time out).
/// Limits: at most 2^31 - 1 elements per tensor (MPI's int counts).
#include <cstdint>
#include <vector>

#include <hetero/distributed/work.hpp>
#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero::distributed {

/// How all_reduce and reduce_scatter combine the ranks' elements, as torch.distributed.ReduceOp.
/// avg is sum / world_size, for floating dtypes only (DTypeError otherwise, as Gloo);
/// max and min propagate NaN for floating dtypes, as hetero::max does.
enum class ReduceOp { sum, avg, product, max, min };

/// Replaces `t` on every rank by the element-wise reduction of all ranks' `t`, as
/// torch.distributed.all_reduce. avg of an integer or bool tensor: DTypeError.
HETERO_API void all_reduce(Tensor& t, ReduceOp op = ReduceOp::sum);
/// all_reduce launched asynchronously: `t` holds the result once the Work completes.
HETERO_API Work all_reduce(Tensor& t, ReduceOp op, AsyncOp);

/// Replaces `t` on every rank by rank `root`'s `t`, as torch.distributed.broadcast.
/// DistributedError when `root` is not a rank of the group.
HETERO_API void broadcast(Tensor& t, int root = 0);
/// broadcast launched asynchronously.
HETERO_API Work broadcast(Tensor& t, int root, AsyncOp);

/// Fills outputs[r] with rank r's `input`, as torch.distributed.all_gather. `outputs`
/// holds world_size() tensors of input's shape and dtype (any devices); ShapeError /
/// DTypeError otherwise.
HETERO_API void all_gather(std::vector<Tensor>& outputs, const Tensor& input);
/// all_gather launched asynchronously (the Work keeps handles to `outputs`' tensors).
HETERO_API Work all_gather(std::vector<Tensor>& outputs, const Tensor& input, AsyncOp);

/// Writes rank r's `input` into elements [r * n, (r + 1) * n) of `output` (row-major,
/// n = input.numel()), as torch.distributed.all_gather_into_tensor: `output` is, e.g.,
/// [world_size * d0, d1, ...] or [world_size, d0, d1, ...]. ShapeError unless
/// output.numel() == world_size() * n; DTypeError unless the dtypes match.
HETERO_API void all_gather_into_tensor(Tensor& output, const Tensor& input);
/// all_gather_into_tensor launched asynchronously.
HETERO_API Work all_gather_into_tensor(Tensor& output, const Tensor& input, AsyncOp);

/// Reduces inputs[r] over all ranks into rank r's `output`, as
/// torch.distributed.reduce_scatter. `inputs` holds world_size() tensors of output's
/// shape and dtype (any devices).
HETERO_API void reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                               ReduceOp op = ReduceOp::sum);
/// reduce_scatter launched asynchronously (`inputs` are copied into a buffer of the Work's
/// at the call: they may change afterwards).
HETERO_API Work reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                               AsyncOp);

/// Reduces `input` (world_size() * output.numel() elements, row-major) over all ranks
/// and writes block r of the result into rank r's `output`, as
/// torch.distributed.reduce_scatter_tensor.
HETERO_API void reduce_scatter_tensor(Tensor& output, const Tensor& input,
                                      ReduceOp op = ReduceOp::sum);
/// reduce_scatter_tensor launched asynchronously.
HETERO_API Work reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op, AsyncOp);

// --- one root ---------------------------------------------------------------------

/// Reduces `t` over all ranks into rank `dst`'s `t`, as torch.distributed.reduce; the
/// other ranks' `t` is left as it was. DistributedError when `dst` is not a rank of the
/// group (negative ones included, as torch), raised before communicating.
HETERO_API void reduce(Tensor& t, int dst, ReduceOp op = ReduceOp::sum);
/// reduce launched asynchronously.
HETERO_API Work reduce(Tensor& t, int dst, ReduceOp op, AsyncOp);

/// Fills outputs[r] on rank `dst` with rank r's `input`, as torch.distributed.gather: on
/// `dst`, `outputs` holds world_size() tensors of input's shape and dtype (any devices);
/// on every other rank it must be empty (ShapeError otherwise, as torch).
HETERO_API void gather(const Tensor& input, std::vector<Tensor>& outputs, int dst = 0);
/// gather launched asynchronously.
HETERO_API Work gather(const Tensor& input, std::vector<Tensor>& outputs, int dst, AsyncOp);

/// Writes rank `src`'s inputs[r] into rank r's `output`, as torch.distributed.scatter: on
/// `src`, `inputs` holds world_size() tensors of output's shape and dtype; on every other
/// rank it must be empty.
HETERO_API void scatter(Tensor& output, const std::vector<Tensor>& inputs, int src = 0);
/// scatter launched asynchronously (`inputs` are copied at the call).
HETERO_API Work scatter(Tensor& output, const std::vector<Tensor>& inputs, int src, AsyncOp);

// --- every rank to every rank --------------------------------------------------------

/// Splits `input` along its first dimension into world_size() equal blocks, sends block r
/// to rank r, and writes the block received from rank r into block r of `output` (row-major),
/// as torch.distributed.all_to_all_single with equal splits. ShapeError when the first
/// dimension does not divide by world_size() (or `input` is 0-d) or the element counts
/// differ; DTypeError when the dtypes do. Uneven splits: the overload below.
HETERO_API void all_to_all_single(Tensor& output, const Tensor& input);
/// all_to_all_single launched asynchronously.
HETERO_API Work all_to_all_single(Tensor& output, const Tensor& input, AsyncOp);

/// all_to_all_single with uneven splits, as torch's output_split_sizes and
/// input_split_sizes: rows (along the first dimension) input_split_sizes[r] go to rank r,
/// and output_split_sizes[r] rows come from rank r, in rank order. Each list has
/// world_size() entries >= 0 summing to its tensor's first dimension; input and output
/// have equal dimensions after the first and one dtype (ShapeError / DTypeError, before
/// communicating). Before any element moves the ranks exchange their splits: when what a
/// rank sends differs from what its peer expects, every rank throws DistributedError (the
/// rank naming the first mismatch it sees) and no tensor is written.
HETERO_API void all_to_all_single(Tensor& output, const Tensor& input,
                                  const std::vector<std::int64_t>& output_split_sizes,
                                  const std::vector<std::int64_t>& input_split_sizes);
/// The uneven all_to_all_single launched asynchronously.
HETERO_API Work all_to_all_single(Tensor& output, const Tensor& input,
                                  const std::vector<std::int64_t>& output_split_sizes,
                                  const std::vector<std::int64_t>& input_split_sizes, AsyncOp);

/// Sends inputs[r] to rank r and receives rank r's tensor into outputs[r], as
/// torch.distributed.all_to_all: lists of world_size() tensors of one dtype, each of any
/// shape (elements go in row-major order); outputs[r] must hold as many elements as rank r
/// sends this rank. ShapeError / DTypeError for a list of the wrong length or a dtype that
/// differs, before communicating; when the element counts do not pair off, every rank
/// throws DistributedError (the rank naming the first mismatch it sees) and no output is
/// written.
HETERO_API void all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs);
/// all_to_all launched asynchronously (`inputs` are copied at the call).
HETERO_API Work all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                           AsyncOp);

}  // namespace hetero::distributed
