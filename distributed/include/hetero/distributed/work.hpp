// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed/work.hpp
/// Work: the handle of a collective launched with `async_op`, as torch.distributed's Work
/// (`dist.all_reduce(t, async_op=True)`). The collective runs on the process group's
/// communication thread while the caller goes on; its result is in its tensors once
/// wait() returns or is_completed() says true. Until then the tensors must be neither read
/// nor written (MPI may be using their memory), as in torch.
///
///   Work w = dist::all_reduce(grad, dist::ReduceOp::avg, dist::async_op);
///   ... compute ...
///   w.wait();  // grad holds the mean
///
/// Collectives launched asynchronously run in the order they were called, behind each
/// other and behind blocking ones, on every rank: the order of calls must still be the
/// same on every rank. Not thread-safe: wait for a Work on the thread that calls the
/// group's collectives. A Work may be dropped without waiting: the collective still
/// completes (or times out) in order, and its result lands in MPI's memory only (a tensor
/// that is not a contiguous cpu tensor of its wire dtype is then not written).
#include <memory>

#include <hetero/export.hpp>

namespace hetero::distributed {

namespace detail {
struct WorkState;
}  // namespace detail

/// Tag selecting the asynchronous overload of a collective, as torch's `async_op=True`.
struct AsyncOp {};
/// The tag value: `dist::all_reduce(t, dist::ReduceOp::sum, dist::async_op)`.
inline constexpr AsyncOp async_op{};

/// A collective in flight (see the file comment). Copies share one state.
class HETERO_API Work {
 public:
  /// A Work with nothing to wait for (completed).
  Work();
  /// Built by the collectives (internal).
  explicit Work(std::shared_ptr<detail::WorkState> state) noexcept;

  /// Blocks until the collective has completed and its result is in its tensors
  /// (copied back from a staging buffer on this thread where it went through one). Throws
  /// what the blocking collective would: DistributedError when the ranks disagree, MPI
  /// fails, the group's timeout passes (counted from the launch; the group becomes
  /// unusable), or the group was destroyed before the collective completed. Later calls
  /// return at once, or throw the same error again.
  void wait();
  /// Whether the collective has completed, without blocking, as Work.is_completed(): when
  /// it has, its result is put in place (as by wait()) and true is returned; a failed one
  /// also counts as completed, and wait() then throws its error: one whose deadline (the
  /// group's timeout from its launch) has passed, and one queued on a group that an earlier
  /// failure made unusable, so that `while (!w.is_completed()) ...` ends when a peer dies.
  /// Never throws.
  bool is_completed() noexcept;

 private:
  std::shared_ptr<detail::WorkState> state_;
};

}  // namespace hetero::distributed
