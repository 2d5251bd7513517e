// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the collectives share: argument checks that throw before any communication, MPI's
// int counts, host pointers, and running a launched collective to completion.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <hetero/distributed/collectives.hpp>
#include <hetero/distributed/work.hpp>
#include <hetero/tensor.hpp>

#include "consistency.hpp"
#include "group.hpp"
#include "work_state.hpp"

namespace hetero::distributed::detail {

using State = std::shared_ptr<WorkState>;

// "[2, 3]".
std::string shape_text(const Shape& s);
// `n` as an MPI count (int); ShapeError beyond INT_MAX.
int mpi_count(std::int64_t n, const char* op);
// Error when `t` is undefined ("<op>: <what> is an undefined tensor").
void check_defined(const Tensor& t, const char* op, const char* what);
// DTypeError unless `a` and `b` have one dtype.
void check_same_dtype(const Tensor& a, const Tensor& b, const char* op);
// Both defined (Error), of one dtype (DTypeError): the start of every check of a collective
// with an input and an output tensor.
void check_in_out(const Tensor& input, const Tensor& output, const char* op);
// One of `input` and `output` (the output when `output_stacked`) holds one block of the
// other's element count per rank, of the same dtype: all_gather_into_tensor's output,
// reduce_scatter_tensor's input. ShapeError / DTypeError otherwise.
void check_stacked(const Tensor& input, const Tensor& output, bool output_stacked, int world,
                   const char* op);
// `list` holds `world` defined tensors of like's shape and dtype.
void check_list(const std::vector<Tensor>& list, const Tensor& like, int world, const char* op,
                const char* what);
// DistributedError unless `root` is a rank of `g` (`what`: "root", "dst", "src").
void check_rank(const Group& g, int root, const char* op, const char* what);
// The element pointer of a host operand (nullptr for no elements: MPI accepts it with a
// count of 0).
void* data_of(const Tensor& host);

// The MPI call of a collective with an input and an output buffer: `from` and `to` are
// their host memory (nullptr for no elements), `in_count` and `out_count` their element
// counts.
using InOutCall =
    std::function<int(const void* from, void* to, int in_count, int out_count, MPI_Comm comm)>;

// Launches a collective reading `input` and writing `output` through host operands of dtype
// `wire` (staged through buffers of the Work's own when `async`, else the group's), and
// writing `output` back once it succeeded: all_gather_into_tensor, reduce_scatter_tensor,
// all_to_all_single. MPI's count limit checked on both. `before_write_back` (may throw)
// runs first on the waiting thread: a check of what the call learnt.
State launch_in_out(Group& g, const CallSite& site, const Tensor& input, Tensor& output, DType wire,
                    bool async, InOutCall call, std::function<void()> before_write_back = {});

// Launches the in-place reduction of `t` over the group: into every rank's `t` without a
// `root` (all_reduce), else into rank `root`'s only (reduce; the others' `t` is only read;
// a root outside the group, negative ones included, raises before communicating). `name`
// is the collective's (or its caller's: all_reduce_gradients), `label` what else the ranks
// must agree on; it holds the group (GroupUse) itself.
State launch_reduction(const char* name, Tensor& t, ReduceOp op, std::optional<int> root,
                       bool async, Group* target, CallLabel label = {});

// Runs a launched collective to completion while `name`'s hold on the group stays (no
// other thread's collective can come between the launch and the wait).
template <class Launch>
void blocking(const char* name, Launch launch, Group* target = nullptr) {
  const GroupUse hold(name, /*new_call=*/false, target);
  Work(launch()).wait();
}

}  // namespace hetero::distributed::detail
