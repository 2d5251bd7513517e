// SPDX-License-Identifier: Apache-2.0
// DistributedDataParallel: a GradientReducer fed by post-accumulate-grad hooks.
#include <hetero/distributed/distributed_data_parallel.hpp>

#include <algorithm>
#include <vector>

#include <hetero/devices.hpp>
#include <hetero/distributed/process_group.hpp>
#include <hetero/hooks.hpp>
#include <hetero/host_cores.hpp>

#include "gradient_reducer.hpp"

namespace hetero::distributed {
namespace {

// Note [When buckets start]
// torch's DDP starts a bucket's all_reduce as soon as its gradients are ready, so that the
// communication runs while backward() computes the earlier layers' gradients. That pays
// only where the communication has hardware of its own to run on: the group's
// communication thread (and Open MPI's progress loop, which busy-polls) needs a core, and a
// cpu device's kernels already use one thread per core by default (HETERO_CPU_THREADS). On
// a 2-core machine with 2 processes, an MLP step with 3 buckets took 5.1-5.9 ms overlapped
// against 3.6-3.8 ms with the same buckets started after backward, and 11 buckets of a deeper
// MLP 69-76 ms against 60-65 (docs/bench/distributed.md, 2026-12-02): each rank's poller
// took time slices from both ranks' backward, and each collective waited for its peer's
// communication thread to be scheduled. Overlap::automatic therefore overlaps only when
// every process on the machine (local_world_size()) can have its cpu devices' kernel
// threads plus its communication thread on cores of their own; buckets of accelerators
// (compute off the host's cores) always overlap. Otherwise buckets are filled as their
// gradients arrive (the copy is work backward would otherwise wait for in wait()) and start,
// in order, in wait(): the timing of all_reduce_gradients. Gradients are identical either way.

// Overlap::automatic's choice for `params` (Note [When buckets start]).
bool communication_has_a_core(const std::vector<std::pair<std::string, Tensor>>& params) {
  std::vector<Device> seen;
  int threads = 1;  // the communication thread
  bool on_cpu = false;
  for (const auto& [name, t] : params) {
    if (std::find(seen.begin(), seen.end(), t.device()) != seen.end()) continue;
    seen.push_back(t.device());
    const DeviceProperties p = device_info(t.device()).properties;
    if (p.kind != DeviceKind::cpu) continue;
    on_cpu = true;
    threads += std::max(1, p.multiprocessor_count);
  }
  return !on_cpu || static_cast<long long>(local_world_size()) * threads <= usable_cores();
}

}  // namespace

struct DistributedDataParallel::State {
  nn::Module* module = nullptr;
  std::unique_ptr<detail::GradientReducer> reducer;
  std::vector<HookHandle> hooks;
  int no_sync_depth = 0;
  bool overlaps = true;  // buckets start during backward (Note [When buckets start])
};

DistributedDataParallel::DistributedDataParallel(nn::Module& module,
                                                 const DataParallelOptions& options)
    : state_(std::make_shared<State>()) {
  broadcast_parameters(module, options.root);
  auto params = detail::trainable_parameters(module);
  // Reverse registration order: backward produces the last layers' gradients first.
  std::vector<std::pair<std::string, Tensor>> reversed(params.rbegin(), params.rend());
  state_->module = &module;
  state_->overlaps = options.overlap == Overlap::always ||
                     (options.overlap == Overlap::automatic && communication_has_a_core(reversed));
  state_->reducer = std::make_unique<detail::GradientReducer>(reversed, options.bucket_bytes,
                                                              "DistributedDataParallel");
  for (std::size_t i = 0; i < reversed.size(); ++i) {
    std::weak_ptr<State> weak = state_;  // the hooks must not keep this object alive
    state_->hooks.push_back(
        reversed[i].second.register_post_accumulate_grad_hook([weak, i](Tensor&) {
          const auto s = weak.lock();
          if (s && s->no_sync_depth == 0) s->reducer->mark_ready(i, s->overlaps);
        }));
  }
}

DistributedDataParallel::~DistributedDataParallel() {
  for (HookHandle& h : state_->hooks) h.remove();
}

nn::Module& DistributedDataParallel::module() noexcept { return *state_->module; }

void DistributedDataParallel::wait() {
  if (state_->no_sync_depth > 0) return;
  state_->reducer->finish();
}

DistributedDataParallel::NoSync::NoSync(int* depth) noexcept : depth_(depth) { ++*depth_; }
DistributedDataParallel::NoSync::~NoSync() { --*depth_; }

DistributedDataParallel::NoSync DistributedDataParallel::no_sync() {
  return NoSync(&state_->no_sync_depth);
}

std::size_t DistributedDataParallel::bucket_count() const noexcept {
  return state_->reducer->bucket_count();
}

bool DistributedDataParallel::overlaps() const noexcept { return state_->overlaps; }

}  // namespace hetero::distributed
