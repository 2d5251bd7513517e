// SPDX-License-Identifier: Apache-2.0
#pragma once
// GradientReducer: averages the gradients of a list of parameters over the process group
// in flat buckets, either all at once (all_reduce_gradients) or bucket by bucket as
// backward() makes them ready (DistributedDataParallel), as PyTorch's DDP Reducer.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <hetero/distributed/work.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/tensor.hpp>

#include "consistency.hpp"

namespace hetero::distributed::detail {

// Note [Gradient buckets]
// Parameters are grouped, in the order given (DDP gives them in reverse registration
// order: backward produces the last layer's gradients first), into buckets of one device
// and dtype and at most `bucket_bytes` (a larger parameter gets a bucket of its own). Each
// bucket is one flat tensor on that device: every parameter's gradient, then one presence
// element per parameter (1 when this rank has a gradient for it). The bucket is reduced
// with one all_reduce(avg); afterwards a presence above 0 means some rank had a gradient
// (a rank without one contributed zeros), and 0 means none had, so the parameter keeps no
// gradient, as torch leaves it None. Buckets are launched strictly in order (bucket k only
// after k - 1), so every rank makes the same calls in the same order whichever gradients
// arrive first; those not launched during backward are launched by finish().
//
// Note [Gradients are views of their bucket]: after a pass, each reduced gradient is a view
// of its slot in the bucket, as torch's DDP with gradient_as_bucket_view=True, so nothing
// copies the means out. Each pass fills a new bucket (from the device's caching allocator:
// no system call once warm), so a gradient a caller still holds from an earlier pass is
// never overwritten; the reducer drops its handle at the end of the pass, and the bucket
// lives as long as any of its gradients.
// The parameters of `module` that take part (requiring grad, of floating dtype), with their
// names, in registration order.
std::vector<std::pair<std::string, Tensor>> trainable_parameters(const nn::Module& module);

class GradientReducer {
 public:
  // `parameters`: names and tensors (floating, requiring grad), in bucket order. `caller`
  // names the reductions in errors ("all_reduce_gradients", "DistributedDataParallel"); the
  // ranks' buckets must hold parameters of the same shapes and dtypes (the consistency
  // check compares them, and a disagreement lists each rank's bucket).
  GradientReducer(std::vector<std::pair<std::string, Tensor>> parameters, std::size_t bucket_bytes,
                  const char* caller);

  // Parameter i's gradient is final for this pass (a post-accumulate hook): copies it into
  // its bucket, and, when `launch`, launches every bucket now complete whose predecessors
  // are launched (else finish() launches them). Error when it was already marked since the
  // last finish().
  void mark_ready(std::size_t i, bool launch = true);
  // Launches the buckets not yet launched (a parameter without a gradient on this rank
  // contributes zeros), waits for all, and replaces each gradient by the mean, a view of
  // its bucket (or leaves none). Resets for the next pass, also when it throws. A group of one
  // process: nothing to do.
  void finish();

  std::size_t bucket_count() const noexcept { return buckets_.size(); }
  std::size_t parameter_count() const noexcept { return params_.size(); }

 private:
  struct Bucket {
    std::vector<std::size_t> params;  // indices into params_
    Tensor flat;                      // the gradients, then one presence element each;
                                      // undefined between passes
    std::int64_t elements = 0;        // of gradients
    std::size_t pending = 0;          // parameters not marked this pass
    std::vector<double> present;      // this rank's presence elements, written at launch
    Work work;                        // buckets [0, next_launch_) have one
    CallLabel label;                  // its parameters' shapes and dtypes (CallSite::label)
  };
  struct Param {
    std::string name;
    Tensor tensor;
    std::size_t bucket = 0;
    std::int64_t offset = 0;  // of its gradient in the bucket's flat tensor
    std::size_t index = 0;    // its place in the bucket (its presence element)
    bool ready = false;
  };

  Tensor slot(const Param& p) const;
  // Bucket k's label (CallSite::label): a hash of its parameters' shapes and dtypes (not
  // names: ranks may name alike models differently, as torch's DDP checks shapes only), and
  // the start of "bucket k: name [shape], ..." for the message.
  CallLabel label_of(std::size_t k) const;
  // Whether bucket `b` is filled with each gradient times 1 / world and reduced with sum
  // (float32, float64), rather than with avg (Note [Dividing by the world size]).
  bool sums(const Bucket& b) const;
  void fill(Param& p, bool has_gradient);
  void launch_in_order();
  void reset() noexcept;

  std::vector<Param> params_;
  std::vector<Bucket> buckets_;
  std::size_t next_launch_ = 0;
  bool distributed_ = false;  // more than one process
  int world_ = 1;
  const char* caller_;
};

}  // namespace hetero::distributed::detail
