// SPDX-License-Identifier: Apache-2.0
#include "collective_args.hpp"

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

void* data_of(const Tensor& host) { return host.numel() == 0 ? nullptr : host.host_data_ptr(); }

void check_rank(const Group& g, int root, const char* op, const char* what) {
  if (root < 0 || root >= g.size)
    throw g.error(op, fmt::format("{} {} is not a rank of a group of {}", what, root, g.size));
}

}  // namespace hetero::distributed::detail
