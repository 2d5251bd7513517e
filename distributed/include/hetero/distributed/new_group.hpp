// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed/new_group.hpp
/// Process groups of some ranks, as torch.distributed.new_group: every rank of the default
/// group calls new_group() with the same list; the ranks in it get a ProcessGroup whose
/// collectives involve only them (as libtorch's c10d::ProcessGroup methods), the others
/// an empty handle. Ranks given to a group's methods (root, dst, src) are ranks of the
/// default group, as torch's; rank() and size() are the group's own.
///
///   dist::ProcessGroup evens = dist::new_group({0, 2});
///   if (evens.is_member()) evens.all_reduce(t);  // sums over ranks 0 and 2
///
/// The groups of a process share its communication thread: their collectives run one at
/// a time in the order they were called, so ranks in several groups must call those
/// groups' collectives in the same order (as torch requires with one NCCL stream), and a
/// collective that times out leaves every group unusable.
#include <memory>
#include <vector>

#include <hetero/distributed/collectives.hpp>
#include <hetero/distributed/work.hpp>
#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero::distributed {

namespace detail {
struct Group;
}  // namespace detail

/// A group of ranks (see the file comment). Copies share the group; the group's MPI
/// communicator is freed when the last copy goes. Methods as the free functions of
/// collectives.hpp and process_group.hpp, splits and ranks counted in the group;
/// DistributedError from any of them on a rank that is not a member, or when a root is
/// not a member.
class HETERO_API ProcessGroup {
 public:
  /// No group (what non-members get).
  ProcessGroup() = default;
  /// For new_group (internal).
  ProcessGroup(std::shared_ptr<detail::Group> group, std::vector<int> ranks);

  /// Whether this rank belongs to the group.
  bool is_member() const noexcept { return group_ != nullptr; }
  /// This rank's rank in the group, 0..size()-1.
  int rank() const;
  /// Number of ranks in the group.
  int size() const;
  /// The members, as ranks of the default group, in group rank order.
  const std::vector<int>& ranks() const noexcept { return ranks_; }

  /// The collectives of collectives.hpp over this group's ranks (same semantics, errors and
  /// AsyncOp forms returning a Work; splits, roots, dst and src as the file comment says; the
  /// all_to_all_single with split sizes takes one entry per group rank).
  /// @{
  void all_reduce(Tensor& t, ReduceOp op = ReduceOp::sum);
  Work all_reduce(Tensor& t, ReduceOp op, AsyncOp);
  void broadcast(Tensor& t, int root);
  Work broadcast(Tensor& t, int root, AsyncOp);
  void all_gather(std::vector<Tensor>& outputs, const Tensor& input);
  Work all_gather(std::vector<Tensor>& outputs, const Tensor& input, AsyncOp);
  void all_gather_into_tensor(Tensor& output, const Tensor& input);
  Work all_gather_into_tensor(Tensor& output, const Tensor& input, AsyncOp);
  void reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                      ReduceOp op = ReduceOp::sum);
  Work reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op, AsyncOp);
  void reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op = ReduceOp::sum);
  Work reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op, AsyncOp);
  void reduce(Tensor& t, int dst, ReduceOp op = ReduceOp::sum);
  Work reduce(Tensor& t, int dst, ReduceOp op, AsyncOp);
  void gather(const Tensor& input, std::vector<Tensor>& outputs, int dst);
  Work gather(const Tensor& input, std::vector<Tensor>& outputs, int dst, AsyncOp);
  void scatter(Tensor& output, const std::vector<Tensor>& inputs, int src);
  Work scatter(Tensor& output, const std::vector<Tensor>& inputs, int src, AsyncOp);
  void all_to_all_single(Tensor& output, const Tensor& input);
  Work all_to_all_single(Tensor& output, const Tensor& input, AsyncOp);
  void all_to_all_single(Tensor& output, const Tensor& input,
                         const std::vector<std::int64_t>& output_split_sizes,
                         const std::vector<std::int64_t>& input_split_sizes);
  Work all_to_all_single(Tensor& output, const Tensor& input,
                         const std::vector<std::int64_t>& output_split_sizes,
                         const std::vector<std::int64_t>& input_split_sizes, AsyncOp);
  void all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs);
  Work all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, AsyncOp);
  void barrier();
  Work barrier(AsyncOp);
  /// @}

 private:
  // The group for `op`; DistributedError on a non-member.
  detail::Group* member(const char* op) const;
  // The group rank of default-group rank `world_rank`; DistributedError when it is not a
  // member.
  int group_rank_of(int world_rank, const char* op) const;

  std::shared_ptr<detail::Group> group_;
  std::vector<int> ranks_;
};

/// Makes a group of `ranks` (ranks of the default group, each once, in any order; the
/// group's ranks follow their order in the default group), as torch.distributed.new_group.
/// Collective over the default group: every rank calls it, with the same list (checked),
/// under the group's timeout. Returns the group on its members, an empty ProcessGroup
/// elsewhere. DistributedError when a rank is out of range or repeated, the lists differ,
/// or there is no default group.
HETERO_API ProcessGroup new_group(const std::vector<int>& ranks);

}  // namespace hetero::distributed
