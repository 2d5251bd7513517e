// SPDX-License-Identifier: Apache-2.0
#pragma once
// Queued kernels of the CPU backend: copies of the arguments whose buffers are HostRefs
// owned by the task (see cpu_buffer.hpp), submission to a device's queue, and what a
// failing kernel leaves behind (Note [Poisoned buffers], poison.hpp).
#include <array>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include <hetero/dtype.hpp>
#include <hetero/sdk/kernel_args.hpp>

#include "cpu_buffer.hpp"
#include "cpu_device.hpp"
#include "poison.hpp"

namespace hetero::cpu {

/// What a kernel's failure names: "cpu:1: exp (float16) failed: ...".
struct KernelName {
  std::string_view op;         ///< static storage (op_name(), literals)
  std::optional<DType> dtype;  ///< none for byte copies
  int device = 0;
  std::string context() const {
    std::string s = "cpu:" + std::to_string(device) + ": " + std::string(op);
    if (dtype) s += " (" + std::string(dtype_name(*dtype)) + ")";
    return s + " failed: ";
  }
};

/// Runs body() as the kernel `name` reading the allocations `inputs()` (an array of ids)
/// and writing `output()` (an id, 0 for none, or an array of them): an input poisoned by an earlier
/// failure fails it, and any failure poisons the output and is rethrown typed, with the kernel
/// named (Note [Poisoned buffers]). The ids are asked for only when a mark exists or the kernel
/// failed: the common path costs one atomic load.
template <class Inputs, class Output, class Body>
void run_kernel(const KernelName& name, Inputs&& inputs, Output&& output, Body&& body) {
  std::exception_ptr error;
  if (poison::any())
    for (const std::uint64_t id : inputs())
      if (std::exception_ptr cause = poison::of(id)) {
        error = poison::with_context(
            cause, name.context() + "an input is the output of a failed kernel: ");
        break;
      }
  if (!error) {
    try {
      body();
      return;
    } catch (...) {
      error = poison::with_context(std::current_exception(), name.context());
    }
  }
  const auto outputs = output();
  if constexpr (std::is_integral_v<std::remove_const_t<decltype(outputs)>>)
    poison::mark(outputs, error);
  else
    for (const std::uint64_t id : outputs) poison::mark(id, error);
  std::rethrow_exception(error);
}

/// run_kernel over views: the last `Outputs` are the outputs, the others are inputs (views
/// without a buffer count as none).
template <std::size_t Outputs, class F, class... Views>
void run_view_kernel(const KernelName& name, F& fn, const Views&... views) {
  constexpr std::size_t kInputs = sizeof...(Views) - Outputs;
  const std::array<const StridedView*, sizeof...(Views)> all{&views...};
  run_kernel(
      name,
      [&] {
        std::array<std::uint64_t, kInputs> inputs{};
        for (std::size_t i = 0; i < kInputs; ++i) inputs[i] = buffer_id(all[i]->buffer);
        return inputs;
      },
      [&] {
        std::array<std::uint64_t, Outputs> outputs{};
        for (std::size_t i = 0; i < Outputs; ++i) outputs[i] = buffer_id(all[kInputs + i]->buffer);
        return outputs;
      },
      [&] { fn(views...); });
}

/// fn(views...) with each view's buffer re-pointed at a HostRef of this task; the last
/// `Outputs` views are written.
template <class F, std::size_t N, std::size_t Outputs>
class ViewTask final : public WorkQueue::Task {
 public:
  ViewTask(const KernelName& name, F fn, const std::array<const StridedView*, N>& views)
      : name_(name), fn_(std::move(fn)) {
    for (std::size_t i = 0; i < N; ++i) {
      views_[i] = *views[i];
      if (views_[i].buffer) views_[i].buffer = &refs_[i].emplace(*views_[i].buffer);
    }
  }
  void run() override {
    std::apply([&](const auto&... v) { run_view_kernel<Outputs>(name_, fn_, v...); }, views_);
  }

 private:
  KernelName name_;
  F fn_;
  std::array<StridedView, N> views_;
  std::array<std::optional<HostRef>, N> refs_;
};

/// run_kernel for a GEMM: reads a, b (and c when beta != 0), writes c.
template <class F>
void run_gemm_kernel(const KernelName& name, F& fn, const GemmArgs& args) {
  run_kernel(
      name,
      [&] {
        return std::array<std::uint64_t, 3>{buffer_id(args.a), buffer_id(args.b),
                                            args.beta != 0 ? buffer_id(args.c) : 0};
      },
      [&] { return buffer_id(args.c); }, [&] { fn(args); });
}

/// fn(args) with a, b and c re-pointed at HostRefs of this task.
template <class F>
class GemmTask final : public WorkQueue::Task {
 public:
  GemmTask(const KernelName& name, F fn, const GemmArgs& args)
      : name_(name), fn_(std::move(fn)), args_(args) {
    Buffer** buffers[3] = {&args_.a, &args_.b, &args_.c};
    for (int i = 0; i < 3; ++i)
      if (*buffers[i]) *buffers[i] = &refs_[i].emplace(**buffers[i]);
  }
  void run() override { run_gemm_kernel(name_, fn_, args_); }

 private:
  KernelName name_;
  F fn_;
  GemmArgs args_;
  std::array<std::optional<HostRef>, 3> refs_;
};

/// Runs fn(views...) as kernel `op` on `device`'s queue, in order, where `runs` says
/// (WorkQueue::submit: at once when small and idle, or on this thread after the work before
/// it); the last `Outputs` views are written (a failure poisons each), the last one's dtype
/// is the one named on failure. `cost` is the work in elements.
template <std::size_t Outputs, class F, class... Views>
void submit_views_where(CpuDevice& device, std::string_view op, std::int64_t cost,
                        WorkQueue::Runs runs, F fn, const Views&... views) {
  static_assert(Outputs >= 1 && Outputs < sizeof...(Views) + 1);
  const KernelName name{op, std::get<sizeof...(Views) - 1>(std::tie(views...)).dtype,
                        device.index()};
  device.queue().submit(
      cost, [&] { run_view_kernel<Outputs>(name, fn, views...); },
      [&] {
        return std::make_unique<ViewTask<F, sizeof...(Views), Outputs>>(
            name, fn, std::array<const StridedView*, sizeof...(Views)>{&views...});
      },
      runs);
}

/// submit_views_where for work that may run anywhere (WorkQueue::Runs::anywhere).
template <std::size_t Outputs, class F, class... Views>
void submit_views_writing(CpuDevice& device, std::string_view op, std::int64_t cost, F fn,
                          const Views&... views) {
  submit_views_where<Outputs>(device, op, cost, WorkQueue::Runs::anywhere, std::move(fn), views...);
}

/// submit_views_writing with one output, the last view.
template <class F, class... Views>
void submit_views(CpuDevice& device, std::string_view op, std::int64_t cost, F fn,
                  const Views&... views) {
  submit_views_writing<1>(device, op, cost, std::move(fn), views...);
}

}  // namespace hetero::cpu
