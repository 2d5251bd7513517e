// SPDX-License-Identifier: Apache-2.0
// DistributedDataParallel: a GradientReducer fed by post-accumulate-grad hooks.
#include <hetero/distributed/distributed_data_parallel.hpp>

#include <vector>

#include <hetero/hooks.hpp>

#include "gradient_reducer.hpp"

namespace hetero::distributed {
struct DistributedDataParallel::State {
  nn::Module* module = nullptr;
  std::unique_ptr<detail::GradientReducer> reducer;
  std::vector<HookHandle> hooks;
  int no_sync_depth = 0;
};

DistributedDataParallel::DistributedDataParallel(nn::Module& module,
                                                 const DataParallelOptions& options)
    : state_(std::make_shared<State>()) {
  broadcast_parameters(module, options.root);
  auto params = detail::trainable_parameters(module);
  // Reverse registration order: backward produces the last layers' gradients first.
  std::vector<std::pair<std::string, Tensor>> reversed(params.rbegin(), params.rend());
  state_->module = &module;
  state_->reducer = std::make_unique<detail::GradientReducer>(reversed, options.bucket_bytes,
                                                              "DistributedDataParallel");
  for (std::size_t i = 0; i < reversed.size(); ++i) {
    std::weak_ptr<State> weak = state_;  // the hooks must not keep this object alive
    state_->hooks.push_back(
        reversed[i].second.register_post_accumulate_grad_hook([weak, i](Tensor&) {
          const auto s = weak.lock();
          if (s && s->no_sync_depth == 0) s->reducer->mark_ready(i);
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

}  // namespace hetero::distributed
