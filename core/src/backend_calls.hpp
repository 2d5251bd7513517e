// SPDX-License-Identifier: Apache-2.0
#pragma once
// Note [One call layer]: the only code of the core that calls Backend's virtuals (the
// loader, plugin_library.cpp, creates the backend and asks its identity; everything else
// comes here). Each call checks what the Backend contract says the core guarantees
// (sdk/include/hetero/sdk/backend.hpp) before the plugin sees it:
// - the device index is in range (checked once, where a Device becomes a plugin:
//   registry.cpp's plugin_for; storages and views carry checked indices);
// - the op is in the plugin's tables and its backend supports it for the dtype
//   (OpSupport): otherwise NotImplementedError naming op, dtype, device and backend;
// - views are non-empty (Note [Empty tensors]): HETERO_INTERNAL_ASSERT, the callers skip
//   empty work.
// Kernels run on the device of the Storage `on` and are queued on its default stream.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <hetero/internal_assert.hpp>
#include <hetero/sdk/backend.hpp>

#include "plugin_library.hpp"
#include "profiler_record.hpp"
#include "storage.hpp"

namespace hetero::detail::calls {

// --- devices (index in range; see plugin_for) -------------------------------------
int device_count(const LoadedPlugin& p) noexcept;
DeviceProperties device_properties(const LoadedPlugin& p, int device);
Capabilities capabilities(const LoadedPlugin& p, int device);
MemoryStats memory_stats(const LoadedPlugin& p, int device);
void empty_cache(const LoadedPlugin& p, int device);
/// Backend::adopt (OptionalCapability::adopt): a buffer wrapping `bytes` bytes at `handle` on
/// `device`, or nullptr when the backend declines or its plugin predates adopt (then
/// `release` is not called). `release` runs once, when the buffer and the work queued on it
/// are done.
std::unique_ptr<Buffer> adopt(const LoadedPlugin& p, int device, void* handle, std::size_t bytes,
                              std::function<void()> release);
std::string unavailable_reason(const LoadedPlugin& p);

// --- memory and streams -----------------------------------------------------------
/// `bytes` >= 1 on `device` (OutOfMemoryError from the backend).
std::unique_ptr<Buffer> allocate(const LoadedPlugin& p, int device, std::size_t bytes);
/// `bytes` >= 1 of pinned host memory.
std::unique_ptr<Buffer> allocate_pinned_host(const LoadedPlugin& p, std::size_t bytes);
Stream& default_stream(const LoadedPlugin& p, int device);

// --- copies of byte ranges, queued on the destination's stream (src's for device to host)
void copy_device_to_host(const Storage& src, std::size_t src_offset, void* dst, std::size_t bytes);
void copy_host_to_device(const void* src, const Storage& dst, std::size_t dst_offset,
                         std::size_t bytes);
void copy_device_to_device(const Storage& src, std::size_t src_offset, const Storage& dst,
                           std::size_t dst_offset, std::size_t bytes);

// --- support ----------------------------------------------------------------------
/// Throws NotImplementedError "<op>: not implemented for '<dtype>' on <device> (backend
/// '<name>' ...)" unless supports(on, op, dtype). Inline: before every kernel.
[[noreturn, gnu::cold]] void throw_not_implemented(const Storage& on, OpRef op, DType dtype);
inline void check_supported(const Storage& on, OpRef op, DType dtype) {
  if (!on.plugin->support.has_kernel(on.device.index(), op, dtype)) [[unlikely]]
    throw_not_implemented(on, op, dtype);
}

/// Note [Retired plugins] (op_helpers.hpp): while a plugin instance that unload_plugins()
/// let go of is still alive (tensors hold it), a kernel may read a buffer of one instance
/// on another's queue, and the buffer's free is ordered on its own queue only. So every
/// kernel then completes before the call returns; the usual path pays one relaxed load.
inline void after_kernel(const Storage& on) {
  if (retired_plugins_alive.load(std::memory_order_relaxed) != 0) [[unlikely]]
    on.stream().synchronize();
}

// --- kernels (checked with check_supported, then queued) --------------------------
// Inline: every op of the core passes here, and the checks are a few compares.

/// Note [Empty tensors]: callers skip work without elements, so every view has a buffer.
inline void check_view(const char* what, const StridedView& v) {
  HETERO_INTERNAL_ASSERT(v.buffer != nullptr, std::string(what) + " called with an empty view");
}

inline void fill(const Storage& on, const StridedView& out, Scalar value) {
  check_supported(on, OpFamily::fill, out.dtype);
  check_view("fill", out);
  const prof::Scope trace("kernel", "fill", &on, &out);
  on.plugin->backend->fill(out, value, on.stream());
  after_kernel(on);
}

/// Also the strided copy (equal dtypes).
inline void cast(const Storage& on, const StridedView& src, const StridedView& dst) {
  check_supported(on, OpFamily::cast, src.dtype);
  check_supported(on, OpFamily::cast, dst.dtype);
  check_view("cast", src);
  check_view("cast", dst);
  const prof::Scope trace("kernel", src.dtype == dst.dtype ? "copy_strided" : "cast", &on, &dst);
  on.plugin->backend->cast(src, dst, on.stream());
  after_kernel(on);
}

inline void unary(const Storage& on, UnaryOp op, const StridedView& in, const StridedView& out) {
  check_supported(on, op, in.dtype);
  check_view("unary", in);
  check_view("unary", out);
  const prof::Scope trace("kernel", op_name(op), &on, &out);
  on.plugin->backend->unary(op, in, out, on.stream());
  after_kernel(on);
}

inline void binary(const Storage& on, BinaryOp op, const StridedView& a, const StridedView& b,
                   const StridedView& out) {
  check_supported(on, op, out.dtype);
  check_view("binary", a);
  check_view("binary", b);
  check_view("binary", out);
  const prof::Scope trace("kernel", op_name(op), &on, &out);
  on.plugin->backend->binary(op, a, b, out, on.stream());
  after_kernel(on);
}

/// A ternary row (interface minor 4); check_supported keeps it from a plugin of an older
/// minor, whose Backend has no ternary() virtual.
inline void ternary(const Storage& on, TernaryOp op, const StridedView& c, const StridedView& x,
                    const StridedView& y, const StridedView& out) {
  check_supported(on, op, out.dtype);
  check_view("ternary", c);
  check_view("ternary", x);
  check_view("ternary", y);
  check_view("ternary", out);
  const prof::Scope trace("kernel", op_name(op), &on, &out);
  on.plugin->backend->ternary(op, c, x, y, out, on.stream());
  after_kernel(on);
}

/// Whether `on`'s backend reduces `op` of `in`'s dtype into an `out` of `out`'s dtype
/// (Backend::reduces_into, interface minor 10; false for a plugin of an older minor, whose
/// Backend has no such virtual).
inline bool reduces_into(const Storage& on, ReductionOp op, DType in, DType out) {
  return on.plugin->has(OptionalCapability::reduces_into) &&
         on.plugin->backend->reduces_into(op, in, out, on.device.index());
}

inline void reduce(const Storage& on, ReductionOp op, const StridedView& in,
                   const StridedView& out) {
  check_supported(on, op, in.dtype);
  check_view("reduce", in);
  check_view("reduce", out);
  const prof::Scope trace("kernel", op_name(op), &on, &out);
  on.plugin->backend->reduce(op, in, out, on.stream());
  after_kernel(on);
}

inline void random(const Storage& on, RandomDistribution dist, const StridedView& out,
                   std::uint64_t seed, std::uint64_t offset) {
  check_supported(on, dist, out.dtype);
  check_view("random", out);
  const prof::Scope trace("kernel", op_name(dist), &on, &out);
  on.plugin->backend->random(dist, out, seed, offset, on.stream());
  after_kernel(on);
}

/// A device timestamp queued on `on`'s stream (Backend::record_timestamp, interface minor 9),
/// or null where the backend keeps none (or predates them). Never throws: the profiler's.
std::unique_ptr<Event> record_timestamp(const Storage& on) noexcept;
/// Seconds of device time from `start` to `end`, two complete timestamps of `plugin`'s
/// backend (negative when `end` came first); none when the backend cannot say. Never
/// throws: the profiler's.
std::optional<double> elapsed_seconds(const LoadedPlugin& plugin, Event& start,
                                      Event& end) noexcept;

/// Whether `on`'s backend has a kernel for `op` on `dtype`: OpSupport's cached copy of
/// Backend::supports; runs nothing. For the optional families (e.g. the fused softmax, which
/// the core composes from other kernels where the answer is no).
inline bool has_kernel(const Storage& on, OpRef op, DType dtype) noexcept {
  return on.plugin->support.has_kernel(on.device.index(), op, dtype);
}

/// The fused softmax (Backend::softmax, interface minor 3); only where has_kernel() says yes.
inline void softmax(const Storage& on, SoftmaxOp op, const StridedView& in, const StridedView& out,
                    int dim) {
  check_supported(on, op, in.dtype);
  check_view("softmax", in);
  check_view("softmax", out);
  const prof::Scope trace("kernel", op_name(op), &on, &out);
  on.plugin->backend->softmax(op, in, out, dim, on.stream());
  after_kernel(on);
}

/// The convolution kernels (Backend::conv2d, interface minor 8); only where has_kernel() says yes.
/// The caller (ops_conv.cpp) checked the geometry and made the operands dense.
inline void conv2d(const Storage& on, Conv2dOp op, const Conv2dArgs& args, const StridedView& a,
                   const StridedView& b, const StridedView& out) {
  check_supported(on, op, out.dtype);
  check_view("conv2d", a);
  check_view("conv2d", b);
  check_view("conv2d", out);
  HETERO_INTERNAL_ASSERT(a.is_contiguous() && b.is_contiguous() && out.is_contiguous() &&
                             a.dtype == out.dtype && b.dtype == out.dtype,
                         "conv2d called with operands that are not dense or of two dtypes");
  const prof::Scope trace("kernel", op_name(op), &on, &out);
  on.plugin->backend->conv2d(op, args, a, b, out, on.stream());
  after_kernel(on);
}

/// The 3-d convolution kernels (Backend::conv3d, interface minor 16); only where has_kernel()
/// says yes. The caller (ops_conv3d.cpp) checked the geometry and made the operands dense.
inline void conv3d(const Storage& on, Conv3dOp op, const Conv3dArgs& args, const StridedView& a,
                   const StridedView& b, const StridedView& out) {
  check_supported(on, op, out.dtype);
  check_view("conv3d", a);
  check_view("conv3d", b);
  check_view("conv3d", out);
  HETERO_INTERNAL_ASSERT(a.is_contiguous() && b.is_contiguous() && out.is_contiguous() &&
                             a.dtype == out.dtype && b.dtype == out.dtype,
                         "conv3d called with operands that are not dense or of two dtypes");
  const prof::Scope trace("kernel", op_name(op), &on, &out);
  on.plugin->backend->conv3d(op, args, a, b, out, on.stream());
  after_kernel(on);
}

/// The convolution with its bias (Backend::conv2d_bias, interface minor 15); only where
/// has_kernel(Conv2dOp::forward_bias) says yes. The caller made the operands dense.
inline void conv2d_bias(const Storage& on, const Conv2dArgs& args, const StridedView& input,
                        const StridedView& weight, const StridedView& bias,
                        const StridedView& out) {
  check_supported(on, Conv2dOp::forward_bias, out.dtype);
  for (const StridedView* v : {&input, &weight, &bias, &out}) check_view("conv2d_bias", *v);
  HETERO_INTERNAL_ASSERT(input.is_contiguous() && weight.is_contiguous() && bias.is_contiguous() &&
                             out.is_contiguous() && input.dtype == out.dtype &&
                             weight.dtype == out.dtype && bias.dtype == out.dtype,
                         "conv2d_bias called with operands that are not dense or of two dtypes");
  const prof::Scope trace("kernel", op_name(Conv2dOp::forward_bias), &on, &out);
  on.plugin->backend->conv2d_bias(args, input, weight, bias, out, on.stream());
  after_kernel(on);
}

/// The batch normalisation kernels (Backend::batch_norm, interface minor 13); only where
/// has_kernel() says yes. The caller (nn/batch_norm_kernels.cpp) made every used view dense
/// and of one dtype.
inline void batch_norm(const Storage& on, BatchNormOp op, const BatchNormArgs& args,
                       const BatchNormViews& v) {
  check_supported(on, op, v.output.dtype);
  const bool backward = op == BatchNormOp::backward;
  for (const StridedView* view :
       {&v.input, &v.grad_output, &v.weight_bias, &v.stats, &v.output, &v.grad_weight_bias}) {
    if (!backward && (view == &v.grad_output || view == &v.grad_weight_bias)) continue;
    check_view("batch_norm", *view);
    HETERO_INTERNAL_ASSERT(view->is_contiguous() && view->dtype == v.output.dtype,
                           "batch_norm called with operands that are not dense or of two dtypes");
  }
  const prof::Scope trace("kernel", op_name(op), &on, &v.output);
  on.plugin->backend->batch_norm(op, args, v, on.stream());
  after_kernel(on);
}

/// The pooling kernels (Backend::pool2d: max, interface minor 13; average, minor 14); only
/// where has_kernel() says yes. The caller (ops_pool.cpp) checked the geometry and made the
/// views dense.
inline void pool2d(const Storage& on, Pool2dOp op, const Pool2dArgs& args, const Pool2dViews& v) {
  check_supported(on, op, v.x.dtype);
  const bool avg = op == Pool2dOp::avg_forward || op == Pool2dOp::avg_backward;
  const bool half = v.x.dtype == DType::float16 || v.x.dtype == DType::bfloat16;
  for (const StridedView* view : {&v.x, &v.y, avg ? &v.divisor : &v.indices}) {
    check_view("pool2d", *view);
    HETERO_INTERNAL_ASSERT(view->is_contiguous(),
                           "pool2d called with an operand that is not dense");
  }
  HETERO_INTERNAL_ASSERT(
      v.x.dtype == v.y.dtype && (avg ? v.divisor.dtype == (half ? DType::float32 : v.x.dtype) &&
                                           v.divisor.numel() == args.oh * args.ow
                                     : v.indices.dtype == DType::int64),
      "pool2d called with operands of the wrong dtypes");
  const bool forward = op == Pool2dOp::max_forward || op == Pool2dOp::avg_forward;
  const prof::Scope trace("kernel", op_name(op), &on, forward ? &v.y : &v.x);
  on.plugin->backend->pool2d(op, args, v, on.stream());
  after_kernel(on);
}

/// What the index kernels (interface minor 6) are promised: the op in the plugin's minor
/// and supported (check_supported keeps them from an older plugin), non-empty views, an
/// int64 index, one dtype and dim in range; the caller (ops_index.cpp) checked shapes and
/// the index range.
inline void check_index_kernel(const Storage& on, OpFamily family, const StridedView& data,
                               const StridedView& index, int dim, const StridedView& other) {
  const char* what = family == OpFamily::gather ? "gather" : "scatter_add";
  check_supported(on, family, data.dtype);
  check_view(what, data);
  check_view(what, index);
  check_view(what, other);
  HETERO_INTERNAL_ASSERT(
      index.dtype == DType::int64 && data.dtype == other.dtype && dim >= 0 && dim < data.ndim,
      std::string(what) + " called with a bad index, dtype or dim");
}

/// Backend::gather.
inline void gather(const Storage& on, const StridedView& src, const StridedView& index, int dim,
                   const StridedView& out) {
  check_index_kernel(on, OpFamily::gather, out, index, dim, src);
  const prof::Scope trace("kernel", "gather", &on, &out);
  on.plugin->backend->gather(src, index, dim, out, on.stream());
  after_kernel(on);
}

/// Backend::scatter_add, into `out` in place.
inline void scatter_add(const Storage& on, const StridedView& out, const StridedView& index,
                        int dim, const StridedView& src) {
  check_index_kernel(on, OpFamily::scatter_add, out, index, dim, src);
  const prof::Scope trace("kernel", "scatter_add", &on, &out);
  on.plugin->backend->scatter_add(out, index, dim, src, on.stream());
  after_kernel(on);
}

inline void gemm(const Storage& on, const GemmArgs& args) {
  check_supported(on, OpFamily::gemm, args.dtype);
  HETERO_INTERNAL_ASSERT(args.m > 0 && args.n > 0 && args.k > 0 && args.batch > 0,
                         "gemm called with an empty product");
  StridedView shape;  // what the trace shows: [batch, m, n]
  shape.dtype = args.dtype;
  shape.ndim = 3;
  shape.shape = {args.batch, args.m, args.n};
  const prof::Scope trace("kernel", "gemm", &on, &shape);
  on.plugin->backend->gemm(args, on.stream());
  after_kernel(on);
}

}  // namespace hetero::detail::calls
