// SPDX-License-Identifier: Apache-2.0
#include "collective_args.hpp"

#include "reduction.hpp"
#include "staging.hpp"

#include <fmt/format.h>

#include <climits>

#include <hetero/distributed/distributed_error.hpp>
#include <hetero/error.hpp>

namespace hetero::distributed::detail {

std::string shape_text(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

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

void check_in_out(const Tensor& input, const Tensor& output, const char* op) {
  check_defined(input, op, "the input");
  check_defined(output, op, "the output");
  check_same_dtype(input, output, op);
}

void check_stacked(const Tensor& input, const Tensor& output, bool output_stacked, int world,
                   const char* op) {
  check_in_out(input, output, op);
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

void* data_of(const Tensor& host) { return host.numel() == 0 ? nullptr : host.host_data_ptr(); }

void check_rank(const Group& g, int root, const char* op, const char* what) {
  if (root < 0 || root >= g.size)
    throw g.error(op, fmt::format("{} {} is not a rank of a group of {}", what, root, g.size));
}

State launch_reduction(const char* name, Tensor& t, ReduceOp op, std::optional<int> dst, bool async,
                       Group* target, CallLabel label) {
  const GroupUse use(name, true, target);
  Group& g = use.group;
  check_defined(t, name, "the tensor");
  if (dst) check_rank(g, *dst, name, "dst");  // reduce(t, -1) used to be an all_reduce
  const int root = dst.value_or(-1);          // -1: every rank receives
  const DType wire = reduction_dtype(t.dtype());
  const MPI_Op mop = mpi_op(op, wire, g.nan_ops, name);  // DTypeError before communicating
  const bool receives = root < 0 || g.rank == root;
  const bool is_root = root >= 0 && g.rank == root;
  const Tensor host = host_operand(async ? nullptr : &g.staging, Slot::input, t, wire, true);
  const int n = mpi_count(host.numel(), name);
  void* data = data_of(host);
  const int world = g.size;
  CallSite site{name, &t, static_cast<int>(op), root};
  site.label = std::move(label);
  return launch_work(
      g, site,
      [=, comm = g.comm, keep = host] {
        const MPI_Datatype type = mpi_datatype(wire);
        const int rc = root < 0  ? MPI_Allreduce(MPI_IN_PLACE, data, n, type, mop, comm)
                       : is_root ? MPI_Reduce(MPI_IN_PLACE, data, n, type, mop, root, comm)
                                 : MPI_Reduce(data, nullptr, n, type, mop, root, comm);
        if (rc == MPI_SUCCESS && receives && op == ReduceOp::avg)
          divide_by_world_size(data, static_cast<std::size_t>(n), wire, world);
        return rc;
      },
      receives ? host : Tensor(),
      [host, t, receives]() mutable {
        if (receives) write_back(host, t);  // elsewhere MPI only read it
      });
}

State launch_in_out(Group& g, const CallSite& site, const Tensor& input, Tensor& output, DType wire,
                    bool async, InOutCall call, std::function<void()> before_write_back) {
  Staging* staging = async ? nullptr : &g.staging;
  const Tensor in = host_operand(staging, Slot::input, input, wire, /*fill=*/true);
  const Tensor out = host_operand(staging, Slot::output, output, wire, /*fill=*/false);
  const int in_count = mpi_count(in.numel(), site.op);
  const int out_count = mpi_count(out.numel(), site.op);
  const void* from = data_of(in);
  void* to = data_of(out);
  return launch_work(
      g, site,
      [=, comm = g.comm, keep_in = in, keep_out = out, call = std::move(call)] {
        return call(from, to, in_count, out_count, comm);
      },
      out,
      [out, output, before = std::move(before_write_back)]() mutable {
        if (before) before();
        write_back(out, output);
      });
}

}  // namespace hetero::distributed::detail
