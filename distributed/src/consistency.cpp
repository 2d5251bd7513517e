// SPDX-License-Identifier: Apache-2.0
#include "consistency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <hetero/distributed/collectives.hpp>

#include "reduction.hpp"

namespace hetero::distributed::detail {
namespace {

constexpr std::size_t shown_dims = 4;

// 80 bytes, no padding: exchanged as MPI_BYTE between identical builds.
struct Record {
  std::int64_t dims[shown_dims];
  std::int64_t numel;
  std::uint64_t shape_hash;  // FNV-1a of every dimension
  std::int64_t other_numel;
  std::int32_t op_hash, dtype, reduce_op, root, ndim, seq;  // seq: Group::calls
  bool operator==(const Record& o) const { return std::memcmp(this, &o, sizeof(Record)) == 0; }
};
static_assert(sizeof(Record) == 80);

std::uint64_t fnv1a(const void* data, std::size_t bytes,
                    std::uint64_t h = 14695981039346656037ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

Record describe(const CallSite& site, std::int32_t seq) {
  Record r{};
  r.op_hash = static_cast<std::int32_t>(fnv1a(site.op, std::strlen(site.op)) & 0x7fffffff);
  r.reduce_op = site.reduce_op;
  r.root = site.root;
  r.other_numel = site.other_numel;
  r.seq = seq;
  r.dtype = -1;
  r.ndim = -1;  // no operand (barrier)
  if (site.tensor == nullptr) return r;
  const Shape& shape = site.tensor->shape();
  for (std::size_t d = 0; d < std::min(shape.size(), shown_dims); ++d) r.dims[d] = shape[d];
  r.numel = site.tensor->numel();
  r.shape_hash = fnv1a(shape.data(), shape.size() * sizeof(std::int64_t));
  r.dtype = static_cast<std::int32_t>(site.tensor->dtype());
  r.ndim = static_cast<std::int32_t>(shape.size());
  return r;
}

std::int32_t barrier_hash() { return static_cast<std::int32_t>(fnv1a("barrier", 7) & 0x7fffffff); }

std::string show(const Record& r, const char* my_op, const Record& my_record) {
  std::string s = r.op_hash == my_record.op_hash ? my_op : "another collective";
  if (r.op_hash != my_record.op_hash && r.op_hash == barrier_hash()) s = "barrier";
  if (r.seq != my_record.seq)
    s += fmt::format(" (its call #{}, this rank's #{})", r.seq, my_record.seq);
  if (r.ndim < 0) return s;
  s += fmt::format(" {} [", dtype_name(static_cast<DType>(r.dtype)));
  for (std::int32_t d = 0; d < std::min<std::int32_t>(r.ndim, shown_dims); ++d)
    s += fmt::format("{}{}", d ? ", " : "", r.dims[d]);
  s += r.ndim > static_cast<std::int32_t>(shown_dims) ? fmt::format(", ...] ({} dims)", r.ndim)
                                                      : "]";
  if (r.reduce_op >= 0) s += fmt::format(" {}", reduce_op_name(static_cast<ReduceOp>(r.reduce_op)));
  if (r.root >= 0) s += fmt::format(" root {}", r.root);
  if (r.other_numel >= 0) s += fmt::format(" into {} elements", r.other_numel);
  return s;
}

}  // namespace

struct CheckRecords {
  const char* op;
  Record mine;
  std::vector<Record> all;
};

namespace {
constexpr int disagree = -1;
}  // namespace

CheckedCall::CheckedCall(Group& g, const CallSite& site, std::function<int()> collective,
                         const Tensor& written, double timeout_seconds) {
  if (!g.options.check_consistency || !site.checked) {
    call_ = g.launch(site.op, std::move(collective), written, timeout_seconds);
    return;
  }
  records_ = std::make_shared<CheckRecords>(
      CheckRecords{site.op, describe(site, g.calls), std::vector<Record>(g.size)});
  call_ = g.launch(
      site.op,
      [comm = g.comm, r = records_, collective = std::move(collective)] {
        const int gathered = MPI_Allgather(&r->mine, sizeof(Record), MPI_BYTE, r->all.data(),
                                           sizeof(Record), MPI_BYTE, comm);
        if (gathered != MPI_SUCCESS) return gathered;
        if (!std::all_of(r->all.begin(), r->all.end(),
                         [&](const Record& x) { return x == r->all[0]; }))
          return disagree;
        return collective();
      },
      written, timeout_seconds);
}

void CheckedCall::finish(Group& g) {
  const int rc = g.finish(call_);
  if (rc != disagree || !records_) return;
  // Group the ranks by what they called, in rank order of first appearance.
  const std::vector<Record>& all = records_->all;
  std::string listing;
  std::vector<bool> shown(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (shown[i]) continue;
    std::vector<std::size_t> same;
    for (std::size_t j = i; j < all.size(); ++j)
      if (!shown[j] && all[j] == all[i]) same.push_back(j), shown[j] = true;
    listing +=
        fmt::format("{}{} {}: {}", listing.empty() ? "" : "; ", same.size() > 1 ? "ranks" : "rank",
                    fmt::join(same, ", "), show(all[i], records_->op, records_->mine));
  }
  throw g.error(records_->op, "the ranks disagree on this collective: " + listing);
}

void call_checked(Group& g, const CallSite& site, std::function<int()> collective,
                  const Tensor& written) {
  CheckedCall(g, site, std::move(collective), written).finish(g);
}

}  // namespace hetero::distributed::detail
