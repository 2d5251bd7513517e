// SPDX-License-Identifier: Apache-2.0
// new_group and ProcessGroup's own queries (its collectives are defined beside the free
// functions they share their launches with: collectives.cpp, rooted_collectives.cpp,
// process_group.cpp).
#include <hetero/distributed/new_group.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include <hetero/distributed/distributed_error.hpp>

#include "consistency.hpp"
#include "group.hpp"
#include "work_state.hpp"

namespace hetero::distributed {

ProcessGroup::ProcessGroup(std::shared_ptr<detail::Group> group, std::vector<int> ranks)
    : group_(std::move(group)), ranks_(std::move(ranks)) {}

detail::Group* ProcessGroup::member(const char* op) const {
  if (!group_)
    throw DistributedError(fmt::format(
        "{}: this rank is not a member of the process group (new_group gave it an empty one)", op));
  return group_.get();
}

int ProcessGroup::rank() const { return member("rank")->rank; }
int ProcessGroup::size() const { return member("size")->size; }

int ProcessGroup::group_rank_of(int world_rank, const char* op) const {
  member(op);
  const auto it = std::find(ranks_.begin(), ranks_.end(), world_rank);
  if (it == ranks_.end())
    throw DistributedError(fmt::format("{}: rank {} is not a member of the group (ranks [{}])", op,
                                       world_rank, fmt::join(ranks_, ", ")));
  return static_cast<int>(it - ranks_.begin());
}

ProcessGroup new_group(const std::vector<int>& ranks_in) {
  constexpr const char* name = "new_group";
  const detail::GroupUse use(name);
  detail::Group& world = use.group;
  std::vector<int> ranks = ranks_in;
  std::sort(ranks.begin(), ranks.end());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 0 || ranks[i] >= world.size)
      throw world.error(
          name, fmt::format("rank {} is not a rank of a group of {}", ranks[i], world.size));
    if (i > 0 && ranks[i] == ranks[i - 1])
      throw world.error(name, fmt::format("rank {} is listed twice", ranks[i]));
  }
  if (ranks.empty()) throw world.error(name, "the list of ranks is empty");
  const bool member = std::binary_search(ranks.begin(), ranks.end(), world.rank);
  // Every rank must pass the same list: its hash is part of the consistency check, and a
  // disagreement lists each rank's list.
  detail::CallSite site{name, nullptr};
  site.label = {detail::fnv1a(ranks.data(), ranks.size() * sizeof(int)),
                fmt::format("ranks [{}]", fmt::join(ranks, ", "))};
  auto split = std::make_shared<MPI_Comm>(MPI_COMM_NULL);
  Work(detail::launch_work(
           world, site,
           [comm = world.comm, member, key = world.rank, split] {
             return MPI_Comm_split(comm, member ? 0 : MPI_UNDEFINED, key, split.get());
           },
           {}, [] {}))
      .wait();
  if (!member) return {};
  const int level = world.thread ? MPI_THREAD_SERIALIZED : MPI_THREAD_SINGLE;
  std::unique_ptr<detail::Group> g =
      detail::make_group(*split, world.options, level, /*free_parent=*/true,
                         /*start_up=*/false);
  g->world_ranks = ranks;
  return ProcessGroup(std::shared_ptr<detail::Group>(g.release(), detail::retire),
                      std::move(ranks));
}

}  // namespace hetero::distributed
