// SPDX-License-Identifier: Apache-2.0
// The collectives of collectives.hpp: check the call, put the operands in host memory,
// make one MPI call, write the result back (Note [Timeouts on a blocking MPI] for how the
// call is made).
#include <hetero/distributed/collectives.hpp>
#include <hetero/distributed/new_group.hpp>

#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>

#include "collective_args.hpp"
#include "consistency.hpp"
#include "group.hpp"
#include "reduction.hpp"
#include "staging.hpp"
#include "work_state.hpp"

namespace hetero::distributed {
namespace {

using detail::Group;
using detail::Slot;

using detail::check_defined;
using detail::check_list;
using detail::check_stacked;
using detail::data_of;
using detail::mpi_count;
using detail::State;

// Each collective once, launched: blocking = launched, then waited for while the group is
// still held (Note [Timeouts on a blocking MPI]); `async`: its staging buffers are its
// own, not the group's reused ones.

State all_reduce_launch(Tensor& t, ReduceOp op, bool async, detail::Group* target) {
  return detail::launch_reduction("all_reduce", t, op, /*root=*/std::nullopt, async, target);
}

State broadcast_launch(Tensor& t, int root, bool async, detail::Group* target) {
  constexpr const char* name = "broadcast";
  const detail::GroupUse use(name, true, target);
  Group& g = use.group;
  check_defined(t, name, "the tensor");
  detail::check_rank(g, root, name, "root");
  const bool sender = g.rank == root;
  const Tensor host = detail::host_operand(async ? nullptr : &g.staging, Slot::input, t, t.dtype(),
                                           /*fill=*/sender);
  const int n = mpi_count(host.numel(), name);
  void* data = data_of(host);
  return detail::launch_work(
      g, {name, &t, -1, root},
      [=, comm = g.comm, keep = host] {
        return MPI_Bcast(data, n, detail::mpi_datatype(host.dtype()), root, comm);
      },
      host,
      [host, t, sender]() mutable {
        if (!sender) detail::write_back(host, t);
      });
}

// `counted`: the call was counted by the list form that launches this one (all_gather),
// so that a call is counted once whichever form each rank uses (issue #50 item 2: the list
// form counted two, and ranks mixing the forms disagreed from then on, as NCCL does not).
State all_gather_into_tensor_launch(Tensor& output, const Tensor& input, bool async,
                                    detail::Group* target, bool counted = false) {
  constexpr const char* name = "all_gather_into_tensor";
  const detail::GroupUse use(name, /*new_call=*/!counted, target);
  Group& g = use.group;
  check_stacked(input, output, /*output_stacked=*/true, g.size, name);
  const MPI_Datatype type = detail::mpi_datatype(input.dtype());
  return detail::launch_in_out(g, {name, &input, -1, -1, output.numel()}, input, output,
                               input.dtype(), async,
                               [type](const void* from, void* to, int n, int, MPI_Comm comm) {
                                 return MPI_Allgather(from, n, type, to, n, type, comm);
                               });
}

State all_gather_launch(std::vector<Tensor>& outputs, const Tensor& input, bool async,
                        detail::Group* target) {
  constexpr const char* name = "all_gather";
  const detail::GroupUse use(name, true, target);
  Group& g = use.group;
  check_defined(input, name, "the input");
  check_list(outputs, input, g.size, name, "outputs");
  Shape stacked = input.shape();
  stacked.insert(stacked.begin(), g.size);
  Tensor gathered = async ? detail::host_buffer(input.dtype(), stacked, Device::cpu())
                          : g.staging.buffer(Slot::packed, input.dtype(), stacked, Device::cpu());
  State state = all_gather_into_tensor_launch(gathered, input, async, target, /*counted=*/true);
  state->complete = [first = std::move(state->complete), gathered, outputs]() mutable {
    first();
    for (std::size_t r = 0; r < outputs.size(); ++r)
      detail::write_back(gathered[static_cast<std::int64_t>(r)], outputs[r]);
  };
  return state;
}

// `counted` as all_gather_into_tensor_launch's (reduce_scatter's list form counts the call).
State reduce_scatter_tensor_launch(Tensor& output, const Tensor& input, ReduceOp op, bool async,
                                   detail::Group* target, bool counted = false) {
  constexpr const char* name = "reduce_scatter_tensor";
  const detail::GroupUse use(name, /*new_call=*/!counted, target);
  Group& g = use.group;
  check_stacked(input, output, /*output_stacked=*/false, g.size, name);
  const DType wire = detail::reduction_dtype(input.dtype());
  const MPI_Op mop = detail::mpi_op(op, wire, g.nan_ops, name);
  const int world = g.size;
  return detail::launch_in_out(
      g, {name, &input, static_cast<int>(op), -1, output.numel()}, input, output, wire, async,
      [=](const void* from, void* to, int, int n, MPI_Comm comm) {
        const int rc = MPI_Reduce_scatter_block(from, to, n, detail::mpi_datatype(wire), mop, comm);
        if (rc == MPI_SUCCESS && op == ReduceOp::avg)
          detail::divide_by_world_size(to, static_cast<std::size_t>(n), wire, world);
        return rc;
      });
}

State reduce_scatter_launch(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                            bool async, detail::Group* target) {
  constexpr const char* name = "reduce_scatter";
  const detail::GroupUse use(name, true, target);
  Group& g = use.group;
  check_defined(output, name, "the output");
  check_list(inputs, output, g.size, name, "inputs");
  Shape stacked = output.shape();
  stacked.insert(stacked.begin(), g.size);
  Tensor packed = async ? detail::host_buffer(output.dtype(), stacked, Device::cpu())
                        : g.staging.buffer(Slot::packed, output.dtype(), stacked, Device::cpu());
  for (int r = 0; r < g.size; ++r) {
    Tensor row = packed[r];
    row.copy_(inputs[static_cast<std::size_t>(r)]);
  }
  return reduce_scatter_tensor_launch(output, packed, op, async, target, /*counted=*/true);
}

}  // namespace

void all_reduce(Tensor& t, ReduceOp op) {
  detail::blocking("all_reduce", [&] { return all_reduce_launch(t, op, false, nullptr); });
}
Work all_reduce(Tensor& t, ReduceOp op, AsyncOp) {
  return Work(all_reduce_launch(t, op, true, nullptr));
}

void broadcast(Tensor& t, int root) {
  detail::blocking("broadcast", [&] { return broadcast_launch(t, root, false, nullptr); });
}
Work broadcast(Tensor& t, int root, AsyncOp) {
  return Work(broadcast_launch(t, root, true, nullptr));
}

void all_gather_into_tensor(Tensor& output, const Tensor& input) {
  detail::blocking("all_gather_into_tensor",
                   [&] { return all_gather_into_tensor_launch(output, input, false, nullptr); });
}
Work all_gather_into_tensor(Tensor& output, const Tensor& input, AsyncOp) {
  return Work(all_gather_into_tensor_launch(output, input, true, nullptr));
}

void all_gather(std::vector<Tensor>& outputs, const Tensor& input) {
  detail::blocking("all_gather", [&] { return all_gather_launch(outputs, input, false, nullptr); });
}
Work all_gather(std::vector<Tensor>& outputs, const Tensor& input, AsyncOp) {
  return Work(all_gather_launch(outputs, input, true, nullptr));
}

void reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op) {
  detail::blocking("reduce_scatter_tensor",
                   [&] { return reduce_scatter_tensor_launch(output, input, op, false, nullptr); });
}
Work reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op, AsyncOp) {
  return Work(reduce_scatter_tensor_launch(output, input, op, true, nullptr));
}

void reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  detail::blocking("reduce_scatter",
                   [&] { return reduce_scatter_launch(output, inputs, op, false, nullptr); });
}
Work reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op, AsyncOp) {
  return Work(reduce_scatter_launch(output, inputs, op, true, nullptr));
}

// --- ProcessGroup (new_group.hpp): the same launches on the group's own communicator ----

void ProcessGroup::all_reduce(Tensor& t, ReduceOp op) {
  detail::Group* g = member("all_reduce");
  detail::blocking(
      "all_reduce", [&] { return all_reduce_launch(t, op, false, g); }, g);
}
Work ProcessGroup::all_reduce(Tensor& t, ReduceOp op, AsyncOp) {
  return Work(all_reduce_launch(t, op, true, member("all_reduce")));
}
void ProcessGroup::broadcast(Tensor& t, int root) {
  detail::Group* g = member("broadcast");
  const int r = group_rank_of(root, "broadcast");
  detail::blocking(
      "broadcast", [&] { return broadcast_launch(t, r, false, g); }, g);
}
Work ProcessGroup::broadcast(Tensor& t, int root, AsyncOp) {
  detail::Group* g = member("broadcast");
  return Work(broadcast_launch(t, group_rank_of(root, "broadcast"), true, g));
}
void ProcessGroup::all_gather_into_tensor(Tensor& output, const Tensor& input) {
  detail::Group* g = member("all_gather_into_tensor");
  detail::blocking(
      "all_gather_into_tensor",
      [&] { return all_gather_into_tensor_launch(output, input, false, g); }, g);
}
Work ProcessGroup::all_gather_into_tensor(Tensor& output, const Tensor& input, AsyncOp) {
  return Work(all_gather_into_tensor_launch(output, input, true, member("all_gather_into_tensor")));
}
void ProcessGroup::all_gather(std::vector<Tensor>& outputs, const Tensor& input) {
  detail::Group* g = member("all_gather");
  detail::blocking(
      "all_gather", [&] { return all_gather_launch(outputs, input, false, g); }, g);
}
Work ProcessGroup::all_gather(std::vector<Tensor>& outputs, const Tensor& input, AsyncOp) {
  return Work(all_gather_launch(outputs, input, true, member("all_gather")));
}
void ProcessGroup::reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op) {
  detail::Group* g = member("reduce_scatter_tensor");
  detail::blocking(
      "reduce_scatter_tensor",
      [&] { return reduce_scatter_tensor_launch(output, input, op, false, g); }, g);
}
Work ProcessGroup::reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op,
                                         AsyncOp) {
  return Work(
      reduce_scatter_tensor_launch(output, input, op, true, member("reduce_scatter_tensor")));
}
void ProcessGroup::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  detail::Group* g = member("reduce_scatter");
  detail::blocking(
      "reduce_scatter", [&] { return reduce_scatter_launch(output, inputs, op, false, g); }, g);
}
Work ProcessGroup::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                                  AsyncOp) {
  return Work(reduce_scatter_launch(output, inputs, op, true, member("reduce_scatter")));
}

}  // namespace hetero::distributed
