// SPDX-License-Identifier: Apache-2.0
// reduce, gather and scatter: the collectives with one root (collectives.hpp), as
// torch.distributed's; and all_to_all_single / all_to_all.
#include <hetero/distributed/collectives.hpp>
#include <hetero/distributed/new_group.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <numeric>
#include <string_view>

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

using detail::check_defined;
using detail::data_of;
using detail::Group;
using detail::mpi_count;
using detail::Slot;
using detail::State;

// The root's list (world tensors of like's shape and dtype); other ranks pass an empty one,
// as torch ("must not be specified on non-destination ranks").
void check_root_list(const Group& g, const std::vector<Tensor>& list, const Tensor& like, bool root,
                     const char* op, const char* what) {
  if (root) {
    detail::check_list(list, like, g.size, op, what);
  } else if (!list.empty()) {
    throw ShapeError(
        fmt::format("{}: {} must be empty on a rank other than the root ({} "
                    "tensors given on rank {})",
                    op, what, list.size(), g.rank));
  }
}

State reduce_launch(Tensor& t, int dst, ReduceOp op, bool async, detail::Group* target) {
  return detail::launch_reduction("reduce", t, op, dst, async, target);
}

State gather_launch(const Tensor& input, std::vector<Tensor>& outputs, int dst, bool async,
                    detail::Group* target) {
  constexpr const char* name = "gather";
  const detail::GroupUse use(name, true, target);
  Group& g = use.group;
  check_defined(input, name, "the input");
  detail::check_rank(g, dst, name, "dst");
  const bool root = g.rank == dst;
  check_root_list(g, outputs, input, root, name, "outputs");
  Shape stacked = input.shape();
  stacked.insert(stacked.begin(), g.size);
  const Tensor in = detail::host_operand(async ? nullptr : &g.staging, Slot::input, input,
                                         input.dtype(), /*fill=*/true);
  Tensor gathered;
  if (root)
    gathered = async ? detail::host_buffer(input.dtype(), stacked, Device::cpu())
                     : g.staging.buffer(Slot::packed, input.dtype(), stacked, Device::cpu());
  const int n = mpi_count(in.numel(), name);
  if (root) mpi_count(gathered.numel(), name);
  const void* from = data_of(in);
  void* to = root ? data_of(gathered) : nullptr;
  const MPI_Datatype type = detail::mpi_datatype(input.dtype());
  return detail::launch_work(
      g, {name, &input, -1, dst},
      [=, comm = g.comm, keep_in = in, keep_out = gathered] {
        return MPI_Gather(from, n, type, to, n, type, dst, comm);
      },
      gathered,
      [gathered, outputs, root]() mutable {
        if (!root) return;
        for (std::size_t r = 0; r < outputs.size(); ++r)
          detail::write_back(gathered[static_cast<std::int64_t>(r)], outputs[r]);
      });
}

State scatter_launch(Tensor& output, const std::vector<Tensor>& inputs, int src, bool async,
                     detail::Group* target) {
  constexpr const char* name = "scatter";
  const detail::GroupUse use(name, true, target);
  Group& g = use.group;
  check_defined(output, name, "the output");
  detail::check_rank(g, src, name, "src");
  const bool root = g.rank == src;
  check_root_list(g, inputs, output, root, name, "inputs");
  Shape stacked = output.shape();
  stacked.insert(stacked.begin(), g.size);
  Tensor packed;
  if (root) {
    packed = async ? detail::host_buffer(output.dtype(), stacked, Device::cpu())
                   : g.staging.buffer(Slot::packed, output.dtype(), stacked, Device::cpu());
    for (int r = 0; r < g.size; ++r) {
      Tensor row = packed[r];
      row.copy_(inputs[static_cast<std::size_t>(r)]);
    }
  }
  const Tensor out = detail::host_operand(async ? nullptr : &g.staging, Slot::output, output,
                                          output.dtype(), /*fill=*/false);
  const int n = mpi_count(out.numel(), name);
  if (root) mpi_count(packed.numel(), name);
  const void* from = root ? data_of(packed) : nullptr;
  void* to = data_of(out);
  const MPI_Datatype type = detail::mpi_datatype(output.dtype());
  return detail::launch_work(
      g, {name, &output, -1, src},
      [=, comm = g.comm, keep_in = packed, keep_out = out] {
        return MPI_Scatter(from, n, type, to, n, type, src, comm);
      },
      out, [out, output]() mutable { detail::write_back(out, output); });
}

State all_to_all_single_launch(Tensor& output, const Tensor& input, bool async,
                               detail::Group* target) {
  constexpr const char* name = "all_to_all_single";
  const detail::GroupUse use(name, true, target);
  Group& g = use.group;
  detail::check_in_out(input, output, name);
  if (input.dim() == 0 || input.shape()[0] % g.size != 0)
    throw ShapeError(
        fmt::format("{}: the input's first dimension ({}) must split into {} equal "
                    "blocks, one per rank",
                    name, detail::shape_text(input.shape()), g.size));
  if (output.numel() != input.numel())
    throw ShapeError(fmt::format("{}: the output has shape {} ({} elements), the input {} ({})",
                                 name, detail::shape_text(output.shape()), output.numel(),
                                 detail::shape_text(input.shape()), input.numel()));
  const MPI_Datatype type = detail::mpi_datatype(input.dtype());
  const int world = g.size;
  return detail::launch_in_out(
      g, {name, &input, -1, -1, output.numel()}, input, output, input.dtype(), async,
      [type, world](const void* from, void* to, int n, int, MPI_Comm comm) {
        return MPI_Alltoall(from, n / world, type, to, n / world, type, comm);
      });
}

// What the uneven all_to_all_single's task learns: the rows each peer sends this rank.
struct SplitExchange {
  std::vector<std::int64_t> peer_sends;
  bool any_mismatch = false;  // on some rank, a peer's rows differ from what it expects
};

// The splits of `t` (rows along dim 0) for `world` ranks: checked locally.
void check_splits(const std::vector<std::int64_t>& splits, const Tensor& t, int world,
                  const char* op, const char* what) {
  if (static_cast<int>(splits.size()) != world)
    throw ShapeError(fmt::format("{}: {} has {} entries, the group has {} ranks", op, what,
                                 splits.size(), world));
  std::int64_t total = 0;
  for (std::int64_t n : splits) {
    if (n < 0) throw ShapeError(fmt::format("{}: {} holds {} (negative)", op, what, n));
    total += n;
  }
  if (total != t.shape()[0])
    throw ShapeError(fmt::format("{}: {} sum to {} rows, the tensor has {} ({})", op, what, total,
                                 t.shape()[0], detail::shape_text(t.shape())));
}

// `name`: the collective the caller called (all_to_all's lists come through here).
State all_to_all_uneven_launch(Tensor& output, const Tensor& input,
                               const std::vector<std::int64_t>& output_splits,
                               const std::vector<std::int64_t>& input_splits, bool async,
                               detail::Group* target, const char* name = "all_to_all_single") {
  const detail::GroupUse use(name, true, target);
  Group& g = use.group;
  detail::check_in_out(input, output, name);
  if (input.dim() == 0 || output.dim() == 0 ||
      Shape(input.shape().begin() + 1, input.shape().end()) !=
          Shape(output.shape().begin() + 1, output.shape().end()))
    throw ShapeError(
        fmt::format("{}: the input {} and the output {} must be at least 1-d with "
                    "equal dimensions after the first",
                    name, detail::shape_text(input.shape()), detail::shape_text(output.shape())));
  check_splits(input_splits, input, g.size, name, "input_split_sizes");
  check_splits(output_splits, output, g.size, name, "output_split_sizes");
  std::int64_t row = 1;
  for (std::size_t d = 1; d < input.shape().size(); ++d) row *= input.shape()[d];
  // Element counts and displacements per rank (MPI's ints).
  const auto counts = [&](const std::vector<std::int64_t>& splits, std::vector<int>& count,
                          std::vector<int>& displ) {
    std::int64_t at = 0;
    for (std::int64_t n : splits) {
      count.push_back(mpi_count(n * row, name));
      displ.push_back(mpi_count(at, name));
      at += n * row;
    }
  };
  std::vector<int> send_count, send_displ, recv_count, recv_displ;
  counts(input_splits, send_count, send_displ);
  counts(output_splits, recv_count, recv_displ);
  auto exchange = std::make_shared<SplitExchange>();
  // The shapes may differ between ranks: the check compares the dtype only.
  const Tensor dtype_probe = empty({0}, TensorOptions(Device::cpu()).dtype(input.dtype()));
  const MPI_Datatype type = detail::mpi_datatype(input.dtype());
  return detail::launch_in_out(
      g, {name, &dtype_probe}, input, output, input.dtype(), async,
      [=](const void* from, void* to, int, int, MPI_Comm comm) {
        // What every peer sends this rank must be what this rank expects: one small
        // all-to-all of the splits and an agreement, before any element moves.
        exchange->peer_sends.resize(input_splits.size());
        int rc = MPI_Alltoall(input_splits.data(), 1, MPI_INT64_T, exchange->peer_sends.data(), 1,
                              MPI_INT64_T, comm);
        if (rc != MPI_SUCCESS) return rc;
        int bad = exchange->peer_sends != output_splits ? 1 : 0;
        rc = MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
        if (rc != MPI_SUCCESS) return rc;
        if (bad) {
          exchange->any_mismatch = true;
          return MPI_SUCCESS;
        }
        return MPI_Alltoallv(from, send_count.data(), send_displ.data(), type, to,
                             recv_count.data(), recv_displ.data(), type, comm);
      },
      [exchange, output_splits, who = g.who(), name] {
        if (!exchange->any_mismatch) return;
        const bool lists = std::string_view(name) == "all_to_all";
        for (std::size_t r = 0; r < output_splits.size(); ++r)
          if (exchange->peer_sends[r] != output_splits[r])
            throw DistributedError(fmt::format(
                "{}: {}: rank {} sends {} {}, this rank's {} expects {}; nothing was exchanged",
                who, name, r, exchange->peer_sends[r], lists ? "elements" : "rows",
                lists ? fmt::format("outputs[{}]", r) : std::string("output_split_sizes"),
                output_splits[r]));
        throw DistributedError(
            fmt::format("{}: {}: the {} of other ranks disagree; nothing was exchanged", who, name,
                        lists ? "tensor sizes" : "split sizes"));
      });
}

// all_to_all's lists, as torch.distributed.all_to_all: each tensor may have its own shape;
// the element counts must pair off (what rank r sends this rank fills outputs[r]). The
// inputs are packed flat, one run per rank, and go through the uneven all_to_all_single,
// whose exchange of counts refuses a mismatch on every rank before any element moves.
State all_to_all_launch(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, bool async,
                        detail::Group* target) {
  constexpr const char* name = "all_to_all";
  const detail::GroupUse use(name, true, target);
  const int world = use.group.size;
  const auto counts = [&](const std::vector<Tensor>& list, const char* what) {
    if (static_cast<int>(list.size()) != world)
      throw ShapeError(fmt::format("{}: {} holds {} tensors, the group has {} ranks", name, what,
                                   list.size(), world));
    std::vector<std::int64_t> n;
    for (const Tensor& t : list) {
      check_defined(t, name, what);
      detail::check_same_dtype(list[0], t, name);
      n.push_back(t.numel());
    }
    return n;
  };
  const std::vector<std::int64_t> in_counts = counts(inputs, "inputs");
  const std::vector<std::int64_t> out_counts = counts(outputs, "outputs");
  detail::check_same_dtype(inputs[0], outputs[0], name);
  const DType dtype = inputs[0].dtype();
  const auto total = [](const std::vector<std::int64_t>& n) {
    return std::accumulate(n.begin(), n.end(), std::int64_t{0});
  };
  Tensor packed =
      async ? detail::host_buffer(dtype, {total(in_counts)}, Device::cpu())
            : use.group.staging.buffer(Slot::packed, dtype, {total(in_counts)}, Device::cpu());
  std::int64_t at = 0;
  for (std::size_t r = 0; r < inputs.size(); ++r) {
    Tensor run = packed.narrow(0, at, in_counts[r]).view(inputs[r].shape());
    run.copy_(inputs[r]);
    at += in_counts[r];
  }
  Tensor received = detail::host_buffer(dtype, {total(out_counts)}, Device::cpu());
  State state =
      all_to_all_uneven_launch(received, packed, out_counts, in_counts, async, target, name);
  state->complete = [first = std::move(state->complete), received, outputs, out_counts]() mutable {
    first();
    std::int64_t from = 0;
    for (std::size_t r = 0; r < outputs.size(); ++r) {
      detail::write_back(received.narrow(0, from, out_counts[r]).view(outputs[r].shape()),
                         outputs[r]);
      from += out_counts[r];
    }
  };
  return state;
}

}  // namespace

void reduce(Tensor& t, int dst, ReduceOp op) {
  detail::blocking("reduce", [&] { return reduce_launch(t, dst, op, false, nullptr); });
}
Work reduce(Tensor& t, int dst, ReduceOp op, AsyncOp) {
  return Work(reduce_launch(t, dst, op, true, nullptr));
}

void gather(const Tensor& input, std::vector<Tensor>& outputs, int dst) {
  detail::blocking("gather", [&] { return gather_launch(input, outputs, dst, false, nullptr); });
}
Work gather(const Tensor& input, std::vector<Tensor>& outputs, int dst, AsyncOp) {
  return Work(gather_launch(input, outputs, dst, true, nullptr));
}

void scatter(Tensor& output, const std::vector<Tensor>& inputs, int src) {
  detail::blocking("scatter", [&] { return scatter_launch(output, inputs, src, false, nullptr); });
}
Work scatter(Tensor& output, const std::vector<Tensor>& inputs, int src, AsyncOp) {
  return Work(scatter_launch(output, inputs, src, true, nullptr));
}

void all_to_all_single(Tensor& output, const Tensor& input) {
  detail::blocking("all_to_all_single",
                   [&] { return all_to_all_single_launch(output, input, false, nullptr); });
}
Work all_to_all_single(Tensor& output, const Tensor& input, AsyncOp) {
  return Work(all_to_all_single_launch(output, input, true, nullptr));
}

void all_to_all_single(Tensor& output, const Tensor& input,
                       const std::vector<std::int64_t>& output_split_sizes,
                       const std::vector<std::int64_t>& input_split_sizes) {
  detail::blocking("all_to_all_single", [&] {
    return all_to_all_uneven_launch(output, input, output_split_sizes, input_split_sizes, false,
                                    nullptr);
  });
}
Work all_to_all_single(Tensor& output, const Tensor& input,
                       const std::vector<std::int64_t>& output_split_sizes,
                       const std::vector<std::int64_t>& input_split_sizes, AsyncOp) {
  return Work(all_to_all_uneven_launch(output, input, output_split_sizes, input_split_sizes, true,
                                       nullptr));
}

void all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) {
  detail::blocking("all_to_all",
                   [&] { return all_to_all_launch(outputs, inputs, false, nullptr); });
}
Work all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, AsyncOp) {
  return Work(all_to_all_launch(outputs, inputs, true, nullptr));
}

// --- ProcessGroup (new_group.hpp) ------------------------------------------------------

void ProcessGroup::reduce(Tensor& t, int dst, ReduceOp op) {
  detail::Group* g = member("reduce");
  const int r = group_rank_of(dst, "reduce");
  detail::blocking(
      "reduce", [&] { return reduce_launch(t, r, op, false, g); }, g);
}
Work ProcessGroup::reduce(Tensor& t, int dst, ReduceOp op, AsyncOp) {
  detail::Group* g = member("reduce");
  return Work(reduce_launch(t, group_rank_of(dst, "reduce"), op, true, g));
}
void ProcessGroup::gather(const Tensor& input, std::vector<Tensor>& outputs, int dst) {
  detail::Group* g = member("gather");
  const int r = group_rank_of(dst, "gather");
  detail::blocking(
      "gather", [&] { return gather_launch(input, outputs, r, false, g); }, g);
}
Work ProcessGroup::gather(const Tensor& input, std::vector<Tensor>& outputs, int dst, AsyncOp) {
  detail::Group* g = member("gather");
  return Work(gather_launch(input, outputs, group_rank_of(dst, "gather"), true, g));
}
void ProcessGroup::scatter(Tensor& output, const std::vector<Tensor>& inputs, int src) {
  detail::Group* g = member("scatter");
  const int r = group_rank_of(src, "scatter");
  detail::blocking(
      "scatter", [&] { return scatter_launch(output, inputs, r, false, g); }, g);
}
Work ProcessGroup::scatter(Tensor& output, const std::vector<Tensor>& inputs, int src, AsyncOp) {
  detail::Group* g = member("scatter");
  return Work(scatter_launch(output, inputs, group_rank_of(src, "scatter"), true, g));
}
void ProcessGroup::all_to_all_single(Tensor& output, const Tensor& input) {
  detail::Group* g = member("all_to_all_single");
  detail::blocking(
      "all_to_all_single", [&] { return all_to_all_single_launch(output, input, false, g); }, g);
}
Work ProcessGroup::all_to_all_single(Tensor& output, const Tensor& input, AsyncOp) {
  return Work(all_to_all_single_launch(output, input, true, member("all_to_all_single")));
}
void ProcessGroup::all_to_all_single(Tensor& output, const Tensor& input,
                                     const std::vector<std::int64_t>& output_split_sizes,
                                     const std::vector<std::int64_t>& input_split_sizes) {
  detail::Group* g = member("all_to_all_single");
  detail::blocking(
      "all_to_all_single",
      [&] {
        return all_to_all_uneven_launch(output, input, output_split_sizes, input_split_sizes, false,
                                        g);
      },
      g);
}
Work ProcessGroup::all_to_all_single(Tensor& output, const Tensor& input,
                                     const std::vector<std::int64_t>& output_split_sizes,
                                     const std::vector<std::int64_t>& input_split_sizes, AsyncOp) {
  return Work(all_to_all_uneven_launch(output, input, output_split_sizes, input_split_sizes, true,
                                       member("all_to_all_single")));
}
void ProcessGroup::all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) {
  detail::Group* g = member("all_to_all");
  detail::blocking(
      "all_to_all", [&] { return all_to_all_launch(outputs, inputs, false, g); }, g);
}
Work ProcessGroup::all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                              AsyncOp) {
  return Work(all_to_all_launch(outputs, inputs, true, member("all_to_all")));
}

}  // namespace hetero::distributed
