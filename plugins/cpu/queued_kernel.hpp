#pragma once
// Queued kernels of the CPU backend: copies of the arguments whose buffers are HostRefs
// owned by the task (see cpu_buffer.hpp), and submission to a device's queue.
#include <array>
#include <cstddef>
#include <optional>
#include <tuple>

#include <hetero/sdk/kernel_args.hpp>

#include "cpu_buffer.hpp"
#include "cpu_device.hpp"

namespace hetero::cpu {

/// fn(views...) with each view's buffer re-pointed at a HostRef of this task.
template <class F, std::size_t N>
class ViewTask final : public WorkQueue::Task {
 public:
  ViewTask(F fn, const std::array<const StridedView*, N>& views) : fn_(std::move(fn)) {
    for (std::size_t i = 0; i < N; ++i) {
      views_[i] = *views[i];
      if (views_[i].buffer) views_[i].buffer = &refs_[i].emplace(*views_[i].buffer);
    }
  }
  void run() override { std::apply(fn_, views_); }

 private:
  F fn_;
  std::array<StridedView, N> views_;
  std::array<std::optional<HostRef>, N> refs_;
};

/// fn(args) with a, b and c re-pointed at HostRefs of this task.
template <class F>
class GemmTask final : public WorkQueue::Task {
 public:
  GemmTask(F fn, const GemmArgs& args) : fn_(std::move(fn)), args_(args) {
    Buffer** buffers[3] = {&args_.a, &args_.b, &args_.c};
    for (int i = 0; i < 3; ++i)
      if (*buffers[i]) *buffers[i] = &refs_[i].emplace(**buffers[i]);
  }
  void run() override { fn_(args_); }

 private:
  F fn_;
  GemmArgs args_;
  std::array<std::optional<HostRef>, 3> refs_;
};

/// Runs fn(views...) on `device`'s queue, in order (at once when small and idle).
/// `cost` is the work in elements (multiply-adds for GEMM).
template <class F, class... Views>
void submit_views(CpuDevice& device, std::int64_t cost, F fn, const Views&... views) {
  device.queue().submit(
      cost, [&] { fn(views...); },
      [&] {
        return std::make_unique<ViewTask<F, sizeof...(Views)>>(
            fn, std::array<const StridedView*, sizeof...(Views)>{&views...});
      });
}

}  // namespace hetero::cpu
