// SPDX-License-Identifier: Apache-2.0
#include "gradient_reducer.hpp"

#include <fmt/format.h>

#include <hetero/autograd.hpp>
#include <hetero/distributed/collectives.hpp>
#include <hetero/distributed/process_group.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>
#include <hetero/ops_out.hpp>

#include "collective_args.hpp"

namespace hetero::distributed::detail {

std::vector<std::pair<std::string, Tensor>> trainable_parameters(const nn::Module& module) {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [name, p] : module.named_parameters())
    if (p.requires_grad() && is_floating_point(p.dtype())) out.emplace_back(name, p);
  return out;
}

GradientReducer::GradientReducer(std::vector<std::pair<std::string, Tensor>> parameters,
                                 std::size_t bucket_bytes, const char* caller)
    : distributed_(world_size() > 1), world_(world_size()), caller_(caller) {
  for (auto& [name, t] : parameters) {
    const bool fits =
        !buckets_.empty() &&
        params_[buckets_.back().params.front()].tensor.device() == t.device() &&
        params_[buckets_.back().params.front()].tensor.dtype() == t.dtype() &&
        (static_cast<std::size_t>(buckets_.back().elements) + static_cast<std::size_t>(t.numel())) *
                element_size(t.dtype()) <=
            bucket_bytes;
    if (!fits) buckets_.emplace_back();
    Bucket& b = buckets_.back();
    Param p{std::move(name), t, buckets_.size() - 1, b.elements, b.params.size()};
    b.params.push_back(params_.size());
    b.elements += t.numel();
    params_.push_back(std::move(p));
  }
  if (!distributed_) return;  // the mean over one process is its own gradient
  for (std::size_t k = 0; k < buckets_.size(); ++k) {
    Bucket& b = buckets_[k];
    b.label = label_of(k);
    b.pending = b.params.size();
    b.present.assign(b.params.size(), 0.0);
  }
}

Tensor GradientReducer::slot(const Param& p) const {
  return buckets_[p.bucket].flat.narrow(0, p.offset, p.tensor.numel()).view(p.tensor.shape());
}

void GradientReducer::fill(Param& p, bool has_gradient) {
  Bucket& b = buckets_[p.bucket];
  if (!b.flat.defined()) {  // Note [Gradients are views of their bucket]: a new one each pass
    const Tensor& first = params_[b.params.front()].tensor;
    b.flat = empty({b.elements + static_cast<std::int64_t>(b.params.size())},
                   TensorOptions(first.device()).dtype(first.dtype()));
  }
  Tensor s = slot(p);
  if (!has_gradient)
    s.copy_(zeros_like(s));
  else if (sums(b))  // Note [Dividing by the world size]
    mul_out(s, p.tensor.grad(), 1.0 / world_);
  else
    s.copy_(p.tensor.grad());
  b.present[p.index] = has_gradient ? 1.0 : 0.0;
  p.ready = true;
  --b.pending;
}

CallLabel GradientReducer::label_of(std::size_t k) const {
  CallLabel l;
  l.text = fmt::format("bucket {}:", k);
  std::uint64_t h = fnv1a(&k, sizeof k);
  for (std::size_t i : buckets_[k].params) {
    const Shape& shape = params_[i].tensor.shape();
    const auto dtype = static_cast<std::int32_t>(params_[i].tensor.dtype());
    const auto rank = static_cast<std::int64_t>(shape.size());
    h = fnv1a(&dtype, sizeof dtype, h);
    h = fnv1a(&rank, sizeof rank, h);
    h = fnv1a(shape.data(), shape.size() * sizeof(std::int64_t), h);
    if (l.text.size() < 112)  // what the message can show
      l.text += fmt::format("{} {} [{}]", i == buckets_[k].params.front() ? "" : ",",
                            params_[i].name, fmt::join(shape, ", "));
  }
  l.hash = h;
  return l;
}

bool GradientReducer::sums(const Bucket& b) const {
  const DType t = params_[b.params.front()].tensor.dtype();
  return t == DType::float32 || t == DType::float64;
}

void GradientReducer::launch_in_order() {
  while (next_launch_ < buckets_.size() && buckets_[next_launch_].pending == 0) {
    Bucket& b = buckets_[next_launch_++];
    Tensor flags = b.flat.narrow(0, b.elements, static_cast<std::int64_t>(b.params.size()));
    flags.copy_(from_vector(b.present));
    // Note [Dividing by the world size]: as torch's reducer, each float32 and float64
    // gradient is multiplied by 1 / world while it is copied into the bucket (mul_out: the
    // copy's one pass), and the bucket is summed: afterwards no pass runs over the bucket at
    // all (issue #50 item 7: a division after the all-reduce read the 1.2 MB the peers had
    // just written at memory speed, half the cost of the all-reduce itself). For a world size
    // of a power of two the result is the sum divided by the world size, bit for bit (barring
    // subnormals); otherwise it is torch's sum of rounded quotients. 16-bit buckets keep
    // all_reduce(avg), whose float32 wire divides before converting back (a 16-bit product by
    // 1 / world would lose the low bits of every gradient).
    b.work = Work(launch_reduction(caller_, b.flat, sums(b) ? ReduceOp::sum : ReduceOp::avg,
                                   std::nullopt, /*async=*/true, nullptr, b.label));
  }
}

void GradientReducer::mark_ready(std::size_t i, bool launch) {
  if (!distributed_) return;
  NoGradGuard no_grad;
  Param& p = params_.at(i);
  if (p.ready)
    throw Error(fmt::format(
        "DistributedDataParallel: parameter '{}' received a gradient twice before wait(): "
        "call wait() after each backward(), or run the passes that accumulate under no_sync()",
        p.name));
  if (!p.tensor.grad().defined()) return;  // (a hook fires only after accumulating)
  fill(p, true);
  if (launch) launch_in_order();
}

void GradientReducer::finish() {
  if (!distributed_) return;
  NoGradGuard no_grad;
  struct Reset {
    GradientReducer* r;
    ~Reset() { r->reset(); }
  } reset_at_end{this};
  for (Param& p : params_)
    if (!p.ready) fill(p, p.tensor.grad().defined());
  launch_in_order();
  for (Bucket& b : buckets_) b.work.wait();
  for (Bucket& b : buckets_) {
    const std::vector<double> flags =
        b.flat.narrow(0, b.elements, static_cast<std::int64_t>(b.params.size()))
            .to(DType::float64)
            .to_vector<double>();
    for (std::size_t k = 0; k < b.params.size(); ++k) {
      Param& p = params_[b.params[k]];
      if (!(flags[k] > 0)) continue;      // no rank had a gradient: it keeps none
      p.tensor.mutable_grad() = slot(p);  // Note [Gradients are views of their bucket]
    }
  }
}

void GradientReducer::reset() noexcept {
  for (Param& p : params_) p.ready = false;
  for (Bucket& b : buckets_) {
    b.pending = b.params.size();
    b.work = Work();
    b.flat = Tensor();  // the gradients keep it; the next pass takes a new one
  }
  next_launch_ = 0;
}

}  // namespace hetero::distributed::detail
