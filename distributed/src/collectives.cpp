// SPDX-License-Identifier: Apache-2.0
// The collectives of collectives.hpp: check the call, put the operands in host memory,
// make one MPI call, write the result back (Note [Timeouts on a blocking MPI] for how the
// call is made).
#include <hetero/distributed/collectives.hpp>

#include <fmt/format.h>

#include <climits>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>

#include "consistency.hpp"
#include "group.hpp"
#include "reduction.hpp"
#include "staging.hpp"
#include "work_state.hpp"

namespace hetero::distributed {
namespace {

using detail::Group;
using detail::Slot;

std::string shape_text(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

// MPI counts are int.
int mpi_count(std::int64_t n, const char* op) {
  if (n > INT_MAX)
    throw ShapeError(fmt::format("{}: {} elements exceed MPI's count limit of {}; split the tensor",
                                 op, n, INT_MAX));
  return static_cast<int>(n);
}

void check_defined(const Tensor& t, const char* op, const char* what) {
  if (!t.defined()) throw Error(fmt::format("{}: {} is an undefined tensor", op, what));
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* op) {
  if (a.dtype() != b.dtype())
    throw DTypeError(fmt::format("{}: the input is {} but the output is {}", op,
                                 dtype_name(a.dtype()), dtype_name(b.dtype())));
}

// One of `input` and `output` (the output when `output_stacked`) holds one block of the
// other's element count per rank, of the same dtype: all_gather_into_tensor's output,
// reduce_scatter_tensor's input.
void check_stacked(const Tensor& input, const Tensor& output, bool output_stacked, int world,
                   const char* op) {
  check_defined(input, op, "the input");
  check_defined(output, op, "the output");
  check_same_dtype(input, output, op);
  const Tensor& stacked = output_stacked ? output : input;
  const Tensor& block = output_stacked ? input : output;
  if (stacked.numel() != world * block.numel())
    throw ShapeError(
        fmt::format("{}: {} has shape {} ({} elements), expected {} ranks x {} = {} elements", op,
                    output_stacked ? "the output" : "the input", shape_text(stacked.shape()),
                    stacked.numel(), world, block.numel(), world * block.numel()));
}

void check_list(const std::vector<Tensor>& list, const Tensor& like, int world, const char* op,
                const char* what) {
  if (static_cast<int>(list.size()) != world)
    throw ShapeError(fmt::format("{}: {} holds {} tensors, the group has {} ranks", op, what,
                                 list.size(), world));
  for (std::size_t r = 0; r < list.size(); ++r) {
    check_defined(list[r], op, what);
    if (list[r].shape() != like.shape())
      throw ShapeError(fmt::format("{}: {}[{}] has shape {}, expected {}", op, what, r,
                                   shape_text(list[r].shape()), shape_text(like.shape())));
    check_same_dtype(like, list[r], op);
  }
}

// The element pointer of a host operand (nullptr for no elements: MPI accepts it with a count of
// 0).
void* data_of(const Tensor& host) { return host.numel() == 0 ? nullptr : host.host_data_ptr(); }

using State = std::shared_ptr<detail::WorkState>;

// Each collective once, launched: blocking = launched, then waited for while the group is
// still held (Note [Timeouts on a blocking MPI]); `async`: its staging buffers are its
// own, not the group's reused ones.

State all_reduce_launch(Tensor& t, ReduceOp op, bool async) {
  constexpr const char* name = "all_reduce";
  const detail::GroupUse use(name);
  Group& g = use.group;
  check_defined(t, name, "the tensor");
  const DType wire = detail::reduction_dtype(t.dtype());
  const MPI_Op mop = detail::mpi_op(op, wire, g.nan_ops, name);  // DTypeError before communicating
  const Tensor host =
      detail::host_operand(async ? nullptr : &g.staging, Slot::input, t, wire, /*fill=*/true);
  const int n = mpi_count(host.numel(), name);
  void* data = data_of(host);
  const int world = g.size;
  return detail::launch_work(
      g, {name, &t, static_cast<int>(op)},
      [=, comm = g.comm, keep = host] {
        const int rc = MPI_Allreduce(MPI_IN_PLACE, data, n, detail::mpi_datatype(wire), mop, comm);
        if (rc == MPI_SUCCESS && op == ReduceOp::avg)
          detail::divide_by_world_size(data, static_cast<std::size_t>(n), wire, world);
        return rc;
      },
      host, [host, t]() mutable { detail::write_back(host, t); });
}

State broadcast_launch(Tensor& t, int root, bool async) {
  constexpr const char* name = "broadcast";
  const detail::GroupUse use(name);
  Group& g = use.group;
  check_defined(t, name, "the tensor");
  if (root < 0 || root >= g.size)
    throw g.error(name, fmt::format("root {} is not a rank of a group of {}", root, g.size));
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

State all_gather_into_tensor_launch(Tensor& output, const Tensor& input, bool async) {
  constexpr const char* name = "all_gather_into_tensor";
  const detail::GroupUse use(name);
  Group& g = use.group;
  check_stacked(input, output, /*output_stacked=*/true, g.size, name);
  detail::Staging* staging = async ? nullptr : &g.staging;
  const Tensor in = detail::host_operand(staging, Slot::input, input, input.dtype(), /*fill=*/true);
  const Tensor out =
      detail::host_operand(staging, Slot::output, output, output.dtype(), /*fill=*/false);
  const int n = mpi_count(in.numel(), name);
  mpi_count(out.numel(), name);
  const void* from = data_of(in);
  void* to = data_of(out);
  const MPI_Datatype type = detail::mpi_datatype(input.dtype());
  return detail::launch_work(
      g, {name, &input, -1, -1, output.numel()},
      [=, comm = g.comm, keep_in = in, keep_out = out] {
        return MPI_Allgather(from, n, type, to, n, type, comm);
      },
      out, [out, output]() mutable { detail::write_back(out, output); });
}

State all_gather_launch(std::vector<Tensor>& outputs, const Tensor& input, bool async) {
  constexpr const char* name = "all_gather";
  const detail::GroupUse use(name);
  Group& g = use.group;
  check_defined(input, name, "the input");
  check_list(outputs, input, g.size, name, "outputs");
  Shape stacked = input.shape();
  stacked.insert(stacked.begin(), g.size);
  Tensor gathered = async ? detail::host_buffer(input.dtype(), stacked, Device::cpu())
                          : g.staging.buffer(Slot::packed, input.dtype(), stacked, Device::cpu());
  State state = all_gather_into_tensor_launch(gathered, input, async);
  state->complete = [first = std::move(state->complete), gathered, outputs]() mutable {
    first();
    for (std::size_t r = 0; r < outputs.size(); ++r)
      detail::write_back(gathered[static_cast<std::int64_t>(r)], outputs[r]);
  };
  return state;
}

State reduce_scatter_tensor_launch(Tensor& output, const Tensor& input, ReduceOp op, bool async) {
  constexpr const char* name = "reduce_scatter_tensor";
  const detail::GroupUse use(name);
  Group& g = use.group;
  check_stacked(input, output, /*output_stacked=*/false, g.size, name);
  const DType wire = detail::reduction_dtype(input.dtype());
  const MPI_Op mop = detail::mpi_op(op, wire, g.nan_ops, name);
  detail::Staging* staging = async ? nullptr : &g.staging;
  const Tensor in = detail::host_operand(staging, Slot::input, input, wire, /*fill=*/true);
  const Tensor out = detail::host_operand(staging, Slot::output, output, wire, /*fill=*/false);
  mpi_count(in.numel(), name);
  const int n = mpi_count(out.numel(), name);
  const void* from = data_of(in);
  void* to = data_of(out);
  const int world = g.size;
  return detail::launch_work(
      g, {name, &input, static_cast<int>(op), -1, output.numel()},
      [=, comm = g.comm, keep_in = in, keep_out = out] {
        const int rc = MPI_Reduce_scatter_block(from, to, n, detail::mpi_datatype(wire), mop, comm);
        if (rc == MPI_SUCCESS && op == ReduceOp::avg)
          detail::divide_by_world_size(to, static_cast<std::size_t>(n), wire, world);
        return rc;
      },
      out, [out, output]() mutable { detail::write_back(out, output); });
}

State reduce_scatter_launch(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                            bool async) {
  constexpr const char* name = "reduce_scatter";
  const detail::GroupUse use(name);
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
  return reduce_scatter_tensor_launch(output, packed, op, async);
}

// Runs a launched collective to completion while `name`'s hold on the group stays (no
// other thread's collective can come between the launch and the wait).
template <class Launch>
void blocking(const char* name, Launch launch) {
  const detail::GroupUse hold(name, /*new_call=*/false);
  Work(launch()).wait();
}

}  // namespace

void all_reduce(Tensor& t, ReduceOp op) {
  blocking("all_reduce", [&] { return all_reduce_launch(t, op, false); });
}
Work all_reduce(Tensor& t, ReduceOp op, AsyncOp) { return Work(all_reduce_launch(t, op, true)); }

void broadcast(Tensor& t, int root) {
  blocking("broadcast", [&] { return broadcast_launch(t, root, false); });
}
Work broadcast(Tensor& t, int root, AsyncOp) { return Work(broadcast_launch(t, root, true)); }

void all_gather_into_tensor(Tensor& output, const Tensor& input) {
  blocking("all_gather_into_tensor",
           [&] { return all_gather_into_tensor_launch(output, input, false); });
}
Work all_gather_into_tensor(Tensor& output, const Tensor& input, AsyncOp) {
  return Work(all_gather_into_tensor_launch(output, input, true));
}

void all_gather(std::vector<Tensor>& outputs, const Tensor& input) {
  blocking("all_gather", [&] { return all_gather_launch(outputs, input, false); });
}
Work all_gather(std::vector<Tensor>& outputs, const Tensor& input, AsyncOp) {
  return Work(all_gather_launch(outputs, input, true));
}

void reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op) {
  blocking("reduce_scatter_tensor",
           [&] { return reduce_scatter_tensor_launch(output, input, op, false); });
}
Work reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op, AsyncOp) {
  return Work(reduce_scatter_tensor_launch(output, input, op, true));
}

void reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  blocking("reduce_scatter", [&] { return reduce_scatter_launch(output, inputs, op, false); });
}
Work reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op, AsyncOp) {
  return Work(reduce_scatter_launch(output, inputs, op, true));
}

}  // namespace hetero::distributed
