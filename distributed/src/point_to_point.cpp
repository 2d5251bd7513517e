// SPDX-License-Identifier: Apache-2.0
// send / recv (point_to_point.hpp): a two-element header (dtype, element count) then the
// elements, both with the caller's tag on the group's communicator, so that the receiver
// can refuse a tensor that does not match rather than truncate it.
#include <hetero/distributed/point_to_point.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include <hetero/error.hpp>

#include "collective_args.hpp"
#include "consistency.hpp"
#include "group.hpp"
#include "staging.hpp"
#include "work_state.hpp"

namespace hetero::distributed {
namespace {

constexpr int mismatch = -2;  // the task's code: the message did not fit the tensor

// The group, usable, for point-to-point call `op` with peer `peer` ("dst" or "src").
void check_call(const detail::Group& g, const char* op, int peer, const char* what, int tag,
                bool any_allowed) {
  if (!g.broken.empty()) throw g.error(op, "the process group is unusable: " + g.broken);
  if (!(any_allowed && peer == any_source)) detail::check_rank(g, peer, op, what);
  if (peer == g.rank)
    throw g.error(op, fmt::format("{} {} is this rank: a rank does not {} itself", what, peer,
                                  op == std::string_view("send") ? "send to" : "receive from"));
  if (tag < 0 || tag > detail::max_user_tag)
    throw g.error(op, fmt::format("tag {} is out of range [0, {}]", tag, detail::max_user_tag));
}

// What recv's task learns: the sender and its header.
struct Received {
  int source = -1;
  std::int64_t header[2] = {0, 0};  // dtype, element count
};

}  // namespace

void send(const Tensor& t, int dst, int tag) {
  constexpr const char* name = "send";
  const detail::GroupUse use(name, /*new_call=*/false);
  detail::Group& g = use.group;
  detail::check_defined(t, name, "the tensor");
  check_call(g, name, dst, "dst", tag, /*any_allowed=*/false);
  const Tensor host = detail::host_operand(&g.staging, detail::Slot::input, t, t.dtype(), true);
  const int n = detail::mpi_count(host.numel(), name);
  const void* data = detail::data_of(host);
  const MPI_Datatype type = detail::mpi_datatype(t.dtype());
  const std::int64_t header[2] = {static_cast<std::int64_t>(t.dtype()), t.numel()};
  detail::CallSite site{name, &t};
  site.checked = false;
  Work(detail::launch_work(
           g, site,
           [=, comm = g.comm, keep = host] {
             const int rc = MPI_Send(header, 2, MPI_INT64_T, dst, tag, comm);
             return rc != MPI_SUCCESS ? rc : MPI_Send(data, n, type, dst, tag, comm);
           },
           {}, [] {}))
      .wait();
}

int recv(Tensor& t, int src, int tag) {
  constexpr const char* name = "recv";
  const detail::GroupUse use(name, /*new_call=*/false);
  detail::Group& g = use.group;
  detail::check_defined(t, name, "the tensor");
  check_call(g, name, src, "src", tag, /*any_allowed=*/true);
  const Tensor host = detail::host_operand(&g.staging, detail::Slot::input, t, t.dtype(), false);
  const int n = detail::mpi_count(host.numel(), name);
  void* data = detail::data_of(host);
  const DType dtype = t.dtype();
  auto got = std::make_shared<Received>();
  detail::CallSite site{name, &t};
  site.checked = false;
  Work(detail::launch_work(
           g, site,
           [=, comm = g.comm, keep = host] {
             MPI_Status status;
             int rc = MPI_Recv(got->header, 2, MPI_INT64_T, src < 0 ? MPI_ANY_SOURCE : src, tag,
                               comm, &status);
             if (rc != MPI_SUCCESS) return rc;
             got->source = status.MPI_SOURCE;
             const auto sent_dtype = static_cast<DType>(got->header[0]);
             if (sent_dtype == dtype && got->header[1] == n)
               return MPI_Recv(data, n, detail::mpi_datatype(dtype), got->source, tag, comm,
                               MPI_STATUS_IGNORE);
             // Not this tensor's: take the message off the wire and drop it.
             MPI_Status data_status;
             rc = MPI_Probe(got->source, tag, comm, &data_status);
             if (rc != MPI_SUCCESS) return rc;
             int bytes = 0;
             MPI_Get_count(&data_status, MPI_BYTE, &bytes);
             std::vector<char> scratch(static_cast<std::size_t>(std::max(bytes, 1)));
             rc = MPI_Recv(scratch.data(), bytes, MPI_BYTE, got->source, tag, comm,
                           MPI_STATUS_IGNORE);
             return rc != MPI_SUCCESS ? rc : mismatch;
           },
           host,
           [&g, got, host, t, dtype]() mutable {
             const bool known = got->header[0] >= 0 && got->header[0] < kDTypeCount;
             const auto sent_dtype = static_cast<DType>(got->header[0]);
             const std::string what = fmt::format(
                 "rank {} sent a {} tensor of {} elements, this one is {} with {} elements; "
                 "nothing was written",
                 got->source, known ? dtype_name(sent_dtype) : "non-tensor", got->header[1],
                 dtype_name(dtype), t.numel());
             if (sent_dtype != dtype) throw DTypeError(g.who() + ": recv: " + what);
             if (got->header[1] != t.numel()) throw ShapeError(g.who() + ": recv: " + what);
             detail::write_back(host, t);
           }))
      .wait();
  return got->source;
}

}  // namespace hetero::distributed
