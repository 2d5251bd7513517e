// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file backend.hpp
/// hetero::Backend — what a plugin implements: devices, memory, streams, copies, kernels.
///
/// Contract shared by every method below:
/// - device indices are in [0, device_count()) and every view/buffer argument lives on
///   the device of the stream passed; the core has checked this, plus shapes, dtypes,
///   bounds and supports() (Note [Check then dispatch], docs/design/architecture.md; the
///   checks live in core/src/backend_calls.cpp), so a backend need not repeat them: where
///   it wants to, it asserts (HETERO_INTERNAL_ASSERT), it does not throw a caller's error;
/// - a kernel is called only for an op and dtype supports() accepts on that device, and
///   only for ops of the plugin's interface minor or older (op_codes.hpp's op_since);
/// - nothing is empty: allocations are of >= 1 byte, copies of >= 1 byte, every view has
///   >= 1 element and GEMM has m, n, k, batch >= 1 (the core handles tensors without
///   elements itself, Note [Empty tensors] in core/src/empty_buffer.hpp);
/// - methods taking a Stream are *queued*: they may return before the work runs and
///   must keep it in order with other work of that stream. A Buffer may be destroyed
///   while work using it is queued: keep its memory until that work is done (OpenCL's
///   clReleaseMemObject does; the cuda backend's pools are stream-ordered). Queued work
///   reads the memory, never the Buffer *objects* it was given: take handle() when
///   enqueuing;
/// - all methods are thread-safe;
/// - errors are thrown as hetero::Error subclasses (never abort/exit); a broken
///   invariant, such as an argument the core should have rejected, is reported with
///   HETERO_INTERNAL_ASSERT (<hetero/internal_assert.hpp>), which throws InternalError.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <hetero/device_properties.hpp>
#include <hetero/error.hpp>
#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/kernel_args.hpp>
#include <hetero/sdk/op_codes.hpp>
#include <hetero/sdk/stream.hpp>

namespace hetero {

/// The interface a backend plugin implements (the contract is the file comment's). The
/// core calls a Backend from several threads: the methods must be thread-safe, as the
/// conformance kit's ConcurrentUseFromThreads checks.
class Backend {
 public:
  virtual ~Backend() = default;

  // --- identity and devices -------------------------------------------------------
  /// Device-type name used in device strings ("cpu", "cuda", "opencl"). Must equal the
  /// plugin's info-record name.
  virtual std::string name() const = 0;
  /// Number of usable devices; 0 is valid ("unavailable is not an error").
  virtual int device_count() const noexcept = 0;
  /// Why device_count() is 0 (e.g. "cudaErrorNoDevice: no CUDA-capable device is
  /// detected"); empty when devices exist.
  virtual std::string unavailable_reason() const { return {}; }
  /// Properties of one device. Free memory is read now.
  virtual DeviceProperties device_properties(int device) const = 0;
  /// Capabilities of one device.
  virtual Capabilities capabilities(int device) const = 0;
  /// Allocation statistics of one device.
  virtual MemoryStats memory_stats(int device) const = 0;

  /// The plugin's answer: whether this backend runs `op` on elements of `dtype` on `device`
  /// (the core caches it per device as OpSupport::has_kernel). For cast: reads
  /// and writes `dtype`; for reduce: the input's dtype). The core asks before every
  /// dispatch (through a table it fills when the plugin loads, so this is not on the hot
  /// path) and raises NotImplementedError naming op, dtype and device where the answer is
  /// no, as torch's "not implemented for 'Half'". The default says yes to everything the
  /// op tables define (table_defines): a backend that implements every kernel keeps it; a
  /// partial backend, or one whose devices lack something (float64 on an OpenCL device
  /// without cl_khr_fp64), overrides it. Answering no to fill or cast of a dtype makes
  /// tensors of that dtype unusable on the device. Must not throw; may be called from any
  /// thread.
  virtual bool supports(OpRef op, DType dtype, int device) const {
    (void)device;
    return table_defines(op, dtype);
  }

  // --- memory and streams ---------------------------------------------------------
  /// Allocates `bytes` (>= 1) bytes on `device`, blocking. Contents undefined.
  /// Ownership passes to the caller. Throws OutOfMemoryError naming the device, the
  /// requested and the free bytes; the device stays usable.
  virtual std::unique_ptr<Buffer> allocate(int device, std::size_t bytes) = 0;
  /// Returns the cached, unused memory of `device` to the device, as
  /// torch.cuda.empty_cache(): memory_stats().reserved drops to what live buffers hold.
  /// Blocks until the work that last used the cached blocks is done. Backends without a
  /// cache do nothing (the default).
  virtual void empty_cache(int device) { (void)device; }
  /// Allocates `bytes` (>= 1) of page-locked (pinned) host memory, as cudaHostAlloc /
  /// torch.Tensor.pin_memory(): host_pointer() and handle() both return the host address,
  /// device() is 0, and copies between it and this backend's devices may run
  /// asynchronously. The buffer may be freed while such a copy is queued: the backend keeps
  /// the memory until the copy is done. Only where capabilities(0).pinned_memory; the
  /// default throws DeviceUnavailableError.
  virtual std::unique_ptr<Buffer> allocate_pinned_host(std::size_t bytes) {
    (void)bytes;
    throw DeviceUnavailableError("backend '" + name() + "' provides no pinned host memory");
  }
  /// The device's default stream; owned by the backend and valid while it lives.
  virtual Stream& default_stream(int device) = 0;

  // --- copies (byte ranges; queued) -------------------------------------------------
  /// Host memory -> `dst` at byte offset. `src` must stay valid until the stream reaches
  /// the copy (the core synchronises for pageable memory).
  virtual void copy_host_to_device(const void* src, Buffer& dst, std::size_t dst_offset,
                                   std::size_t bytes, Stream& stream) = 0;
  /// `src` at byte offset -> host memory. Queued; the caller synchronises before reading.
  virtual void copy_device_to_host(const Buffer& src, std::size_t src_offset, void* dst,
                                   std::size_t bytes, Stream& stream) = 0;
  /// Between two buffers of this backend, on one device or two (a peer copy where
  /// capabilities().peer_copy, else the backend stages it). Queued on `stream`, which
  /// belongs to dst's device.
  virtual void copy_device_to_device(const Buffer& src, std::size_t src_offset, Buffer& dst,
                                     std::size_t dst_offset, std::size_t bytes, Stream& stream) = 0;

  // --- kernels (queued; all views on the stream's device) --------------------------
  /// Sets every element of `out` to `value` (converted to out.dtype).
  virtual void fill(const StridedView& out, Scalar value, Stream& stream) = 0;
  /// Element-by-element conversion between views of equal shape (any strides), also the
  /// strided copy when both dtypes are equal. Float to integer truncates towards zero (as
  /// C++ and torch); to bool is `x != 0` (element_conversion.hpp).
  virtual void cast(const StridedView& src, const StridedView& dst, Stream& stream) = 0;
  /// out = op(in) (the op's row in op_table.hpp); equal shapes (in may have 0 strides),
  /// equal dtypes.
  virtual void unary(UnaryOp op, const StridedView& in, const StridedView& out, Stream& stream) = 0;
  /// out = a op b; a and b already broadcast to out's shape (0 strides), equal dtypes.
  /// `out` may be the very view `a` (same buffer, offset, shape and strides): an in-place
  /// update, as torch's add_ (the core's convolution gradient accumulates so); each element
  /// is then read before it is written. Any other overlap between out and an input does not
  /// occur.
  virtual void binary(BinaryOp op, const StridedView& a, const StridedView& b,
                      const StridedView& out, Stream& stream) = 0;
  /// Reduction of `in` into `out` (see ReductionOp for the layout rule; Note [Reduction
  /// semantics], reduction_ops.hpp). `out` has `in`'s dtype (int64 for argmax), or, where
  /// reduces_into() (minor 10) says yes, the wider dtype it names.
  virtual void reduce(ReductionOp op, const StridedView& in, const StridedView& out,
                      Stream& stream) = 0;
  /// Fills `out` (float32/float64) with random numbers: element i in C order takes the
  /// i-th value of the counter-based stream (seed, offset + i), so results do not depend
  /// on threading and two calls with the same arguments give the same numbers.
  virtual void random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
                      std::uint64_t offset, Stream& stream) = 0;
  /// Batched GEMM (see GemmArgs).
  virtual void gemm(const GemmArgs& args, Stream& stream) = 0;

#if HETERO_TARGET_INTERFACE_MINOR >= 3
  // --- optional kernels (minor 3): called only where supports() says yes ---------------
  /// out = softmax(in, dim) (op == softmax: exp(x - max) / sum(exp(x - max)) over each
  /// line along `dim`) or log_softmax ((x - max) - log(sum(exp(x - max)))), as
  /// torch.softmax / torch.log_softmax: a line holding NaN gives NaN throughout; a line of
  /// -inf gives NaN. `in` and `out` have equal shapes (any strides, no 0 strides in out),
  /// a floating dtype, ndim >= 1 and 0 <= dim < ndim. The default supports() says no
  /// (table_defines), and then the core composes softmax from reduce, binary and unary; a
  /// backend that implements this overrides both. The default throws NotImplementedError.
  virtual void softmax(SoftmaxOp op, const StridedView& in, const StridedView& out, int dim,
                       Stream& stream) {
    (void)in;
    (void)out;
    (void)dim;
    (void)stream;
    throw NotImplementedError(std::string(op_name(op)) + ": backend '" + name() +
                              "' has no fused kernel");
  }
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 4
  // --- kernels of minor 4 -------------------------------------------------------------
  /// out = op(c, x, y) (the op's row in op_table.hpp; where: `c != 0 ? x : y`, as
  /// torch.where with the condition already converted to the operands' dtype). c, x and y
  /// are broadcast to out's shape (0 strides), all four of one dtype, any dtype (bool
  /// included). Every backend of minor 4 implements it: the default supports() says yes to
  /// every row for every dtype.
  virtual void ternary(TernaryOp op, const StridedView& c, const StridedView& x,
                       const StridedView& y, const StridedView& out, Stream& stream) = 0;
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 6
  // --- kernels of minor 6: indexing along one dimension --------------------------------
  /// out[p] = src[p with p[dim] replaced by index[p]] for every position p of out, as
  /// torch.gather (and, with an index expanded along the other dimensions, index_select and
  /// embedding). `src`, `index` and `out` have one ndim >= 1 and 0 <= dim < ndim; `index`
  /// (int64) and `out` have equal shapes (index may have 0 strides); src.shape[d] ==
  /// out.shape[d] for every d != dim (the core narrows src); src.shape[dim] >= 1 is the
  /// range of the indices, every one in [0, src.shape[dim]) (the core checked them). src
  /// and out share one dtype, any dtype; a copy, no arithmetic. gather_views() in
  /// kernel_args.hpp gives the views to walk. Every backend of minor 6 implements it.
  virtual void gather(const StridedView& src, const StridedView& index, int dim,
                      const StridedView& out, Stream& stream) = 0;
  /// out[p with p[dim] replaced by index[p]] += src[p] for every position p of index, in
  /// place, as torch.Tensor.scatter_add_ (the gradient of gather, index_select and
  /// embedding). `out`, `index` and `src` have one ndim >= 1 and 0 <= dim < ndim; `index`
  /// (int64, may have 0 strides) and `src` have equal shapes; out.shape[d] == index.shape[d]
  /// for every d != dim (the core narrows out); every index in [0, out.shape[dim]) (checked
  /// by the core). `out` has no 0 strides and overlaps neither input. out and src share one
  /// dtype, any dtype: integers wrap around, bool adds as logical or, float16 and bfloat16
  /// add in float and round after every addition (as torch's cpu kernel). Deterministic:
  /// each element of out receives its additions in increasing position along `dim`
  /// (scatter_fibers() in kernel_args.hpp: a fiber per position of the other dimensions,
  /// fibers writing disjoint elements, so they may run in parallel without atomics).
  virtual void scatter_add(const StridedView& out, const StridedView& index, int dim,
                           const StridedView& src, Stream& stream) = 0;
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 7
  // --- memory of minor 7 ----------------------------------------------------------------
  /// A Buffer over `bytes` bytes of `device`'s memory at `handle` that this backend did not
  /// allocate (a device pointer for CUDA, a host pointer for cpu): another library's tensor
  /// imported without a copy (from_dlpack, from_blob on this device), as torch's
  /// from_blob on cuda. Kernels and copies use it as any buffer of the backend. When the
  /// Buffer is destroyed, the backend waits for the work queued on the memory and then
  /// calls `release` once (the owner's deleter; may be empty). Optional: the default
  /// returns nullptr (the core then raises NotImplementedError naming the backend), and
  /// `release` is then not called. Throws InvalidDeviceError for a device out of range and
  /// ValueError for memory the device cannot use as its own (the cuda plugin: host memory,
  /// pinned or not, or another GPU's, by cudaPointerGetAttributes); `release` is not called
  /// when it throws.
  virtual std::unique_ptr<Buffer> adopt(int device, void* handle, std::size_t bytes,
                                        std::function<void()> release) {
    (void)device;
    (void)handle;
    (void)bytes;
    (void)release;
    return nullptr;
  }
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 8
  // --- optional kernels of minor 8: convolution ------------------------------------------
  /// A 2-d convolution of `args`' geometry (cross-correlation, zero padding, no bias) or one
  /// of its gradients, on dense C-order operands of one floating dtype, as
  /// torch.nn.functional.conv2d and aten's convolution_backward:
  /// - forward: a = input [n, c, h, w], b = weight [o, c / groups, kh, kw], out = output
  ///   [n, o, oh, ow];
  /// - backward_input: a = the output's gradient [n, o, oh, ow], b = weight, out = the
  ///   input's gradient [n, c, h, w] (every element written);
  /// - backward_weight: a = the output's gradient, b = input, out = the weight's gradient
  ///   [o, c / groups, kh, kw].
  /// `out` overlaps neither input. Results agree with the direct sums to rounding (the order
  /// of the additions is the backend's). The default supports() says no (table_defines), and
  /// the core then composes convolution from cast, gemm and binary (Note [Convolution as
  /// GEMM]); a backend that implements this overrides both. The default throws
  /// NotImplementedError.
  virtual void conv2d(Conv2dOp op, const Conv2dArgs& args, const StridedView& a,
                      const StridedView& b, const StridedView& out, Stream& stream) {
    (void)args;
    (void)a;
    (void)b;
    (void)out;
    (void)stream;
    throw NotImplementedError(std::string(op_name(op)) + ": backend '" + name() +
                              "' has no convolution kernel");
  }
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 9
  // --- optional device timestamps of minor 9 (the profiler's device time) ---------------
  /// Queues a timestamp on `stream`: an event that, once complete, holds the device's time
  /// at the point where the work queued before it had finished (as cudaEventRecord on an
  /// event created with timing). Null (the default) when the backend keeps no device
  /// times; the profiler then has only host times. Ownership passes to the caller.
  virtual std::unique_ptr<Event> record_timestamp(Stream& stream) {
    (void)stream;
    return nullptr;
  }
  /// Seconds of device time from `start` to `end`, two timestamps of this backend
  /// (record_timestamp) on one device, both complete, as cudaEventElapsedTime (which
  /// gives milliseconds). Throws Error when either is not such a timestamp or is not yet
  /// complete. The default throws NotImplementedError.
  virtual double elapsed_seconds(Event& start, Event& end) {
    (void)start;
    (void)end;
    throw NotImplementedError("elapsed_seconds: backend '" + name() +
                              "' keeps no device timestamps");
  }
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 10
  // --- optional widening reductions of minor 10 ------------------------------------------
  /// Whether reduce(op, in, out, ...) on `device` takes an `out` of `out_dtype` for an `in`
  /// of `in_dtype` where reduce's usual rule gives another (out of in's dtype; int64 for
  /// argmax). The core asks about two kinds: torch.sum's widening of integers, sum of int8,
  /// uint8 or int32 (and of bool, handed over as uint8: its bytes are 0 or 1) into int64,
  /// accumulated in int64 and wrapping as Note [Reduction semantics]; and torch.sum /
  /// torch.mean with dtype=, a floating `in` into another floating `out` (the core's
  /// backward of a 16-bit convolution's bias sums float16 or bfloat16 as float32), summed in
  /// double and rounded once to out's dtype. Where the answer is yes the core reduces the
  /// tensor as it is; where no (the default), it first converts it to out's dtype, a copy
  /// 2-8x the input's size, and reduces that. Answer yes only for the pairs the backend's
  /// reduce implements. Must not throw; may be called from any thread.
  virtual bool reduces_into(ReductionOp op, DType in_dtype, DType out_dtype, int device) const {
    (void)op;
    (void)in_dtype;
    (void)out_dtype;
    (void)device;
    return false;
  }
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 13
  // --- optional kernels of minor 13: batch normalisation ----------------------------------
  /// Batch normalisation of `args`' geometry over `views` (BatchNormViews says which each op
  /// reads and writes), as aten's native_batch_norm with training = true (forward_training:
  /// y and the batch's mean and biased variance) and native_batch_norm_backward
  /// (backward: dL/dx = weight / sqrt(var + eps) * (dy - mean(dy) - (x - mean) *
  /// sum(dy * (x - mean)) / (M * (var + eps))), dL/dweight = sum(dy * (x - mean)) /
  /// sqrt(var + eps), dL/dbias = sum(dy), sums and means per channel over its M = n *
  /// spatial elements). The outputs overlap no input. Results agree with those sums to
  /// rounding. The running statistics are the core's. The default supports() says no, and
  /// the core then composes batch norm from reduce and binary (Note [Batch norm kernels]);
  /// a backend that implements this overrides both. The default throws NotImplementedError.
  virtual void batch_norm(BatchNormOp op, const BatchNormArgs& args, const BatchNormViews& views,
                          Stream& stream) {
    (void)args;
    (void)views;
    (void)stream;
    throw NotImplementedError(std::string(op_name(op)) + ": backend '" + name() +
                              "' has no batch normalisation kernel");
  }
  /// Max and (minor 14) average pooling of `args`' geometry over `views` (Pool2dViews says
  /// which each op reads and writes), as aten's max_pool2d_with_indices (max_forward),
  /// avg_pool2d (avg_forward) and their backwards. The outputs overlap no input. The default
  /// supports() says no, and the core then composes pooling from window views, reductions
  /// and scatter_add (Note [Convolution as GEMM]); a backend that implements this overrides
  /// both, and may support the max ops without the average ones. The default throws
  /// NotImplementedError.
  virtual void pool2d(Pool2dOp op, const Pool2dArgs& args, const Pool2dViews& views,
                      Stream& stream) {
    (void)args;
    (void)views;
    (void)stream;
    throw NotImplementedError(std::string(op_name(op)) + ": backend '" + name() +
                              "' has no pooling kernel");
  }
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 15
  // --- optional kernel of minor 15: convolution with its bias ----------------------------
  /// conv2d's forward (above) with `bias` [o] added to every element of its output channel
  /// before the result is rounded to the dtype, as torch.nn.functional.conv2d with a bias
  /// (Conv2dOp::forward_bias; oneDNN's and cuDNN's fused bias): input [n, c, h, w], weight
  /// [o, c / groups, kh, kw], bias [o] and out [n, o, oh, ow], dense, of one floating dtype.
  /// `out` overlaps no input. Results agree with the direct sums plus the bias to rounding.
  /// The default supports() says no, and the core then runs Conv2dOp::forward and adds the
  /// bias with binary(); a backend that implements this overrides both. The default throws
  /// NotImplementedError.
  virtual void conv2d_bias(const Conv2dArgs& args, const StridedView& input,
                           const StridedView& weight, const StridedView& bias,
                           const StridedView& out, Stream& stream) {
    (void)args;
    (void)input;
    (void)weight;
    (void)bias;
    (void)out;
    (void)stream;
    throw NotImplementedError(std::string(op_name(Conv2dOp::forward_bias)) + ": backend '" +
                              name() + "' has no convolution-with-bias kernel");
  }
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 16
  // --- optional kernels of minor 16: 3-d convolution -------------------------------------
  /// A 3-d convolution of `args`' geometry (cross-correlation, zero padding, no bias) or one
  /// of its gradients, on dense C-order operands of one floating dtype, as
  /// torch.nn.functional.conv3d and aten's convolution_backward (conv2d's contract with a
  /// depth):
  /// - forward: a = input [n, c, d, h, w], b = weight [o, c / groups, kd, kh, kw], out =
  ///   output [n, o, od, oh, ow];
  /// - backward_input: a = the output's gradient, b = weight, out = the input's gradient
  ///   (every element written);
  /// - backward_weight: a = the output's gradient, b = input, out = the weight's gradient.
  /// `out` overlaps neither input. Results agree with the direct sums to rounding. The
  /// default supports() says no, and the core then composes conv3d from conv2d (Note [3-d
  /// ops from 2-d ones]); a backend that implements this overrides both. The default throws
  /// NotImplementedError.
  virtual void conv3d(Conv3dOp op, const Conv3dArgs& args, const StridedView& a,
                      const StridedView& b, const StridedView& out, Stream& stream) {
    (void)args;
    (void)a;
    (void)b;
    (void)out;
    (void)stream;
    throw NotImplementedError(std::string(op_name(op)) + ": backend '" + name() +
                              "' has no 3-d convolution kernel");
  }
#endif
};

}  // namespace hetero
