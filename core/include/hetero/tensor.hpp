// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file tensor.hpp
/// hetero::Tensor — a cheap, shared handle to a strided, typed array on one device,
/// as torch::Tensor. Copying a Tensor copies the handle; both name the same tensor.
///
/// Every operation runs on its operands' device through that device's backend
/// (the same-device rule: operands on different devices throw DeviceMismatchError,
/// nothing is copied implicitly). Device work is queued on the device's stream; host
/// reads (to_vector, item, operator<<) copy from the device and wait for it.
/// A Tensor handle is not synchronised: share handles across threads, not one handle.
#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <hetero/device.hpp>
#include <hetero/dtype.hpp>
#include <hetero/export.hpp>
#include <hetero/hooks.hpp>
#include <hetero/number.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero {

/// Dimensions in elements, outermost first (row-major).
using Shape = std::vector<std::int64_t>;

namespace detail {
struct TensorImpl;
}
class Generator;

/// An n-dimensional array of one dtype on one device, as torch::Tensor: a handle sharing
/// its storage and autograd state with its copies (copying a Tensor copies no elements;
/// clone() does). Views (view, transpose, slicing) share the storage of their base. Use a
/// tensor and the tensors sharing its storage from one thread at a time (concurrent use
/// from several threads is not tested; the devices' own work is asynchronous either way).
class HETERO_API Tensor {
 public:
  /// An undefined tensor (defined() is false); most methods throw Error on it.
  Tensor() = default;
  /// A handle on `impl` (the core's own; applications use the factories).
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}

  /// Whether this handle refers to a tensor (false for a default-constructed one).
  bool defined() const noexcept { return impl_ != nullptr; }
  /// Dimensions in elements.
  const Shape& shape() const;
  /// Element strides per dimension.
  const std::vector<std::int64_t>& strides() const;
  /// Number of dimensions.
  std::int64_t dim() const;
  /// Size of dimension `d` (negative counts from the end); IndexError if out of range.
  std::int64_t size(std::int64_t d) const;
  /// Number of elements.
  std::int64_t numel() const;
  /// The element type.
  DType dtype() const;
  /// The device holding the elements.
  Device device() const;
  /// True when elements are dense in row-major order (always for a tensor without elements).
  bool is_contiguous() const;
  /// Python's `is`: both handles name the same tensor object.
  bool is_same(const Tensor& other) const noexcept { return impl_ == other.impl_; }
  /// True when both tensors view the same device storage (the same allocation).
  bool shares_storage(const Tensor& other) const;

  // --- moving between devices and dtypes ------------------------------------------
  /// This tensor itself when already on `d` (no copy, no allocation: Z.to(Z.device())
  /// .is_same(Z)), else a contiguous copy on `d`, as torch.Tensor.to / MXNet as_in_ctx.
  Tensor to(const Device& d) const;
  /// This tensor itself when already of `t`, else a converted copy on the same device.
  Tensor to(DType t) const;
  /// Always a new allocation and copy on `d`, even on the same device (MXNet copyto).
  Tensor copy_to(const Device& d) const;
  /// to(cpu).
  Tensor cpu() const;
  /// to(cuda:i).
  Tensor cuda(int i = 0) const;
  /// A copy of this cpu tensor in page-locked (pinned) host memory, as
  /// torch.Tensor.pin_memory(): still on `cpu`, but copies from it to a device of the
  /// backend that pinned it (e.g. cuda) are queued without waiting. This tensor itself
  /// when already pinned. Writing into a pinned tensor while a copy from it is still
  /// queued races with that copy (as non_blocking=True in torch): synchronize the
  /// destination device first. Throws InvalidDeviceError for a non-cpu tensor,
  /// DeviceUnavailableError when no loaded backend with a device provides pinned memory. The
  /// copy of a tensor that requires grad keeps its history (copy_'s CopyBackwards), as
  /// torch's.
  Tensor pin_memory() const;
  /// True when the data lives in pinned host memory (see pin_memory()).
  bool is_pinned() const;
  /// A contiguous copy on the same device (always a new allocation).
  Tensor clone() const;
  /// This tensor when contiguous, else clone().
  Tensor contiguous() const;
  /// Replaces this tensor's data, shape, dtype and device by `other`'s, in place, so
  /// every handle to this tensor sees the change (as PyTorch's `param.data = ...`).
  /// Used by Module::to.
  void set_data(const Tensor& other);
  /// Copies `src` (any device, same shape; dtype converted) into this tensor's elements,
  /// in place, as torch.Tensor.copy_. From another device into a contiguous tensor of the
  /// same dtype it is one transfer into this storage (DMA speed when either side is
  /// pinned). ShapeError on shape mismatch; ValueError for an expand()ed destination. As
  /// torch's autograd: CopyBackwards (gradient to `src`), into a view CopySlices on its base;
  /// Error for a leaf that requires grad, a view of one, a view made under NoGradGuard. Not
  /// thread-safe against readers of it or its views. Note [View bases], [copy_ and autograd].
  void copy_(const Tensor& src);

  // --- in-place arithmetic (Note [In-place ops]) -----------------------------------
  /// this = this + other, this - other, this * other, this / other (true division), written
  /// into this tensor's own elements, as torch.Tensor.add_ / sub_ / mul_ / div_ (without
  /// alpha); returns *this. `other` broadcasts to this tensor's shape and the result is
  /// computed in the promoted dtype (as add() etc.), then stored in this dtype: DTypeError
  /// when torch refuses that cast (a floating result into an integer tensor, as an int64
  /// tensor's div_ or add_(1.5); anything but bool into bool); ShapeError when the broadcast
  /// shape is not this tensor's ("output with shape [3] doesn't match the broadcast shape
  /// [2, 3]"); DeviceMismatchError for another device; ValueError for an expand()ed
  /// destination or an `other` that partly overlaps it (x.narrow(0, 1, 3).add_(x.narrow(0,
  /// 0, 3)); clone() it first), as torch. Autograd as torch's: Error for a leaf that requires
  /// grad, or a view of one, with grad mode on (an optimiser step writes under
  /// NoGradGuard); otherwise the new history's gradient is exact, recorded as copy_'s
  /// (grad_fn_name() "CopyBackwards", or "CopySlices" on a view's base; torch names the op,
  /// "AddBackward0"). Bumps the version: a backward that saved this tensor then raises.
  /// Not thread-safe against readers of this tensor or its views.
  /// @{
  Tensor& add_(const Tensor& other);
  Tensor& sub_(const Tensor& other);
  Tensor& mul_(const Tensor& other);
  Tensor& div_(const Tensor& other);
  /// @}
  /// The same with a number as `other`, wrapped as `x + 2` and `x + 2.5` wrap it
  /// (ops.hpp): an integral number keeps an integer tensor's dtype (uint8 add_(300) adds
  /// 44, as torch), a floating one makes it float32 and so DTypeError; div_ is always true
  /// division.
  /// @{
  Tensor& add_(Number other);
  Tensor& sub_(Number other);
  Tensor& mul_(Number other);
  Tensor& div_(Number other);
  /// @}
  /// this + alpha * other and this - alpha * other, as torch.Tensor.add_(other, alpha=...)
  /// and sub_: alpha * other is computed in the promoted dtype (float32 when that is float16
  /// or bfloat16), then added as add_(other) adds; torch fuses the product into the sum, so
  /// a floating result may differ from torch's by an ulp. An integral alpha with integer
  /// dtypes wraps as their arithmetic does. DTypeError for a floating alpha with an integer
  /// result dtype (torch: "For integral input tensors, argument alpha must not be a floating
  /// point number") and for any alpha but 1 with bool ones (hetero; use logical ops).
  /// @{
  Tensor& add_(const Tensor& other, Number alpha);
  Tensor& sub_(const Tensor& other, Number alpha);
  /// @}
  /// The operators of add_, sub_, mul_ and div_ (as libtorch's).
  /// @{
  Tensor& operator+=(const Tensor& other) { return add_(other); }
  Tensor& operator-=(const Tensor& other) { return sub_(other); }
  Tensor& operator*=(const Tensor& other) { return mul_(other); }
  Tensor& operator/=(const Tensor& other) { return div_(other); }
  Tensor& operator+=(Number other) { return add_(other); }
  Tensor& operator-=(Number other) { return sub_(other); }
  Tensor& operator*=(Number other) { return mul_(other); }
  Tensor& operator/=(Number other) { return div_(other); }
  /// @}
  /// Sets every element to `value`, as torch.Tensor.fill_; returns *this. DTypeError when
  /// the value does not fit this dtype, torch's checked conversion: NaN, inf or a value
  /// outside the range for an integer dtype (a floating value is truncated: 2.7 gives 2; an
  /// integral one into uint8 may be as low as -255 and wraps, -1 gives 255), a finite value
  /// past a floating dtype's largest (float16 1e5); bool takes anything (non-zero is
  /// true). ValueError for an expand()ed tensor. Autograd as add_: Error for a leaf that
  /// requires grad with grad mode on; otherwise a zero gradient to the old history.
  Tensor& fill_(Number value);
  /// fill_(0), as torch.Tensor.zero_.
  Tensor& zero_();
  /// -x, |x|, e^x, log x, sqrt x, sigmoid, tanh and relu of every element, in place, as
  /// torch.Tensor.neg_ / abs_ / exp_ / log_ / sqrt_ / sigmoid_ / tanh_ / relu_: the values
  /// of ops.hpp's functions, stored in this tensor's elements; returns *this. DTypeError
  /// where the function's result cannot be stored in this dtype, add_'s rule (exp_ of an
  /// integer tensor: "result type Float can't be cast to the desired output type Long") or
  /// the function's own (neg_ of bool); ValueError for an expand()ed tensor. Autograd as
  /// add_: Error for a leaf that requires grad with grad mode on; otherwise the gradient is
  /// torch's, the function's saved values taken from a copy so that the write leaves them
  /// valid. Computed out of place and copied in (one temporary).
  /// @{
  Tensor& neg_();
  Tensor& abs_();
  Tensor& exp_();
  Tensor& log_();
  Tensor& sqrt_();
  Tensor& sigmoid_();
  Tensor& tanh_();
  Tensor& relu_();
  /// @}
  /// clamp(*this, min, max) in place, as torch.Tensor.clamp_: clamp()'s values and errors
  /// (ops.hpp), stored in this dtype as the unary in-place ops store theirs (an integer
  /// tensor clamped to 2.5: DTypeError, as torch). ValueError when both bounds are absent.
  Tensor& clamp_(std::optional<Number> min, std::optional<Number> max);
  /// pow(*this, exponent) in place, as torch.Tensor.pow_: pow()'s values and errors
  /// (ops.hpp; an integral exponent of an integer tensor stays integral), stored in this
  /// dtype as the unary in-place ops store theirs (an int64 tensor to the 2.5: DTypeError,
  /// as torch). A tensor exponent broadcasts to this shape; ShapeError when the broadcast
  /// shape is larger ("output with shape [3] doesn't match the broadcast shape [2, 3]").
  /// Autograd as the unary in-place ops.
  /// @{
  Tensor& pow_(Number exponent);
  Tensor& pow_(const Tensor& exponent);
  /// @}
  /// masked_fill(*this, mask, value) in place, as torch.Tensor.masked_fill_: `value` where
  /// the bool `mask` is true, masked_fill()'s conversion and errors (ops.hpp); the mask
  /// broadcasts to this shape (ShapeError otherwise, as pow_). The tensor form takes a 0-d
  /// value, which receives a gradient. Autograd as the unary in-place ops.
  /// @{
  Tensor& masked_fill_(const Tensor& mask, double value);
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value);
  /// @}
  /// Fills with draws from U[from, to), as torch.Tensor.uniform_ (nn::init::uniform_ calls
  /// it under NoGradGuard). Floating dtypes only (DTypeError); ValueError for from > to, a
  /// bound that is not finite in this dtype, or to - from beyond its largest value (torch's
  /// checks). The draws are float32 (float64 for a float64 tensor) from `generator`, or the
  /// device's default generator when null (not owned; it advances), then cast. Error for
  /// a leaf that requires grad with grad mode on (as torch); a tensor that requires grad
  /// otherwise gets a zero gradient for its old values, as torch's. Returns *this.
  Tensor& uniform_(double from = 0, double to = 1, Generator* generator = nullptr);
  /// Fills with draws from N(mean, std^2), as torch.Tensor.normal_ (D2L's
  /// `net[0].weight.data.normal_(0, 0.01)`): uniform_'s dtypes, generator and autograd;
  /// ValueError for std < 0 or NaN (as torch).
  Tensor& normal_(double mean = 0, double std = 1, Generator* generator = nullptr);

  // --- views ---------------------------------------------------------------------
  /// Same storage, new shape; one dimension may be -1. Requires a contiguous tensor
  /// (ShapeError otherwise, or when the element count differs).
  Tensor view(const Shape& shape) const;
  /// view() when possible, else a contiguous copy with the new shape.
  Tensor reshape(const Shape& shape) const;
  /// Swaps two dimensions (a view). IndexError for a dimension out of range (a 0-D tensor
  /// takes -1 and 0, as torch).
  Tensor transpose(std::int64_t d0, std::int64_t d1) const;
  /// transpose(0, 1) of a 2-D tensor; of a 0-D or 1-D tensor a view of the same shape (never
  /// the tensor itself, as torch: requires_grad_() of the result leaves this one alone).
  /// ShapeError for more than 2 dimensions.
  Tensor t() const;
  /// Inserts a dimension of size 1 at `d` (a view).
  Tensor unsqueeze(std::int64_t d) const;
  /// Removes dimension `d` if its size is 1; a view in either case (as torch's, never the
  /// tensor itself). IndexError for a dimension out of range (a 0-D tensor takes -1 and 0,
  /// as torch).
  Tensor squeeze(std::int64_t d) const;
  /// Elements [start, start + length) along `dim` (a view), as torch.Tensor.narrow;
  /// negative dim/start count from the end. IndexError when the range does not fit, and
  /// for a 0-D tensor (as torch).
  Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
  /// The i-th slice along dimension 0 (a view); IndexError when out of range.
  Tensor operator[](std::int64_t i) const;
  /// The dimensions reordered: result dimension i is this tensor's dims[i] (a view), as
  /// torch.Tensor.permute; negative dims count from the end. ShapeError unless dims has one
  /// entry per dimension, IndexError for one out of range, ValueError for a repeated one.
  Tensor permute(const std::vector<std::int64_t>& dims) const;
  /// Dimensions start_dim..end_dim merged into one, as torch.flatten (a view when
  /// contiguous, else a copy); a 0-D tensor becomes [1]. IndexError for a dimension out of
  /// range, ValueError when start_dim comes after end_dim.
  Tensor flatten(std::int64_t start_dim = 0, std::int64_t end_dim = -1) const;
  /// This tensor broadcast to `shape` without copying (0 strides), as torch.Tensor.expand:
  /// new dimensions are added in front, -1 keeps a dimension's size, and only size-1
  /// dimensions grow. ShapeError naming both shapes otherwise. The gradient sums over the
  /// broadcast dimensions. Writing into an expanded view writes one element several times.
  Tensor expand(const Shape& shape) const;

  // --- host reads (copy from the device and wait) ------------------------------------
  /// All elements in row-major order, converted to T (float, double, int32_t, int64_t,
  /// uint8_t, int8_t or bool) by the rule of every backend's cast
  /// (<hetero/sdk/element_conversion.hpp>): floating -> integer truncates and saturates,
  /// NaN -> 0; integer -> narrower integer wraps (as torch); anything -> bool is x != 0.
  template <class T>
  std::vector<T> to_vector() const;
  /// The single element, converted to T; ShapeError unless numel() == 1.
  template <class T>
  T item() const;
  /// Address of this tensor's first element (offset applied; strides() still apply) in
  /// host memory, after waiting for the work queued on its device, as
  /// torch.Tensor.data_ptr() of a cpu tensor: for handing a tensor to a host library
  /// (MPI, a codec) without a copy. Valid while this tensor's storage lives; work queued
  /// on the tensor afterwards races with accesses through it. The memory of cpu tensors,
  /// pinned ones included, is host memory; InvalidDeviceError for any other (cuda:0:
  /// copy it to cpu first).
  void* host_data_ptr() const;

  // --- operations (see ops.hpp for the free functions and semantics) ----------------
  /// x.f(...) is the free function f(x, ...) of ops.hpp (same semantics and errors).
  /// @{
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor abs() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor sum() const;
  Tensor sum(std::int64_t dim, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(std::int64_t dim, bool keepdim = false) const;
  /// hetero::sum / hetero::mean as `dtype` (torch's `dtype=`; see ops.hpp).
  Tensor sum(DType dtype) const;
  Tensor sum(std::int64_t dim, bool keepdim, DType dtype) const;
  Tensor mean(DType dtype) const;
  Tensor mean(std::int64_t dim, bool keepdim, DType dtype) const;
  /// Over several dimensions at once (hetero::sum / mean / amax / amin with a list).
  Tensor sum(const std::vector<std::int64_t>& dims, bool keepdim = false) const;
  Tensor mean(const std::vector<std::int64_t>& dims, bool keepdim = false) const;
  Tensor amax(const std::vector<std::int64_t>& dims = {}, bool keepdim = false) const;
  Tensor amin(const std::vector<std::int64_t>& dims = {}, bool keepdim = false) const;
  Tensor max() const;
  Tensor max(std::int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  Tensor min(std::int64_t dim, bool keepdim = false) const;
  Tensor norm() const;
  Tensor argmax() const;
  Tensor argmax(std::int64_t dim, bool keepdim = false) const;
  Tensor matmul(const Tensor& other) const;
  Tensor softmax(std::int64_t dim) const;
  Tensor log_softmax(std::int64_t dim) const;
  /// @}

  // --- autograd (see autograd.hpp) ------------------------------------------------
  /// True when gradients flow to or through this tensor: a leaf marked with
  /// requires_grad_(), or the result of a recorded operation on one.
  bool requires_grad() const;
  /// Marks a leaf as requiring grad (or not), as torch.Tensor.requires_grad_. Floating
  /// dtypes only (DTypeError); Error when turning it off on a non-leaf. Returns *this.
  Tensor& requires_grad_(bool on = true);
  /// The gradient accumulated by backward(): same shape, dtype and device as this
  /// tensor; undefined until a backward() reaches it (as torch's `.grad`).
  Tensor grad() const;
  /// The gradient slot itself, to replace or reset it (as libtorch's mutable_grad());
  /// assigning an undefined Tensor clears it.
  Tensor& mutable_grad();
  /// True for tensors not produced by a recorded operation (as torch.Tensor.is_leaf).
  bool is_leaf() const;
  /// Name of the node that produced this tensor ("MulBackward"), empty for leaves.
  std::string grad_fn_name() const;
  /// A tensor sharing this one's storage without autograd history (requires_grad false),
  /// as torch.Tensor.detach.
  Tensor detach() const;
  /// Computes the gradient of this tensor with respect to every leaf that requires grad
  /// and adds it to their grad(), as torch.Tensor.backward. `gradient` defaults to 1 for
  /// a one-element tensor (ShapeError otherwise); it must have this tensor's shape and
  /// device. The graph's saved tensors are freed unless `retain_graph`; a second
  /// backward through a freed graph throws Error. Blocks only where a gradient formula
  /// reads on the host (none do). Error when this tensor does not require grad.
  void backward(const Tensor& gradient = {}, bool retain_graph = false) const;
  /// Registers `hook` to see (and maybe replace) the gradient with respect to this tensor
  /// each time backward() computes it, as torch.Tensor.register_hook (hooks.hpp). For a
  /// leaf it runs before the gradient is accumulated into grad(). Error when this tensor
  /// does not require grad.
  HookHandle register_hook(GradHook hook);
  /// Registers `hook` to run once per backward() pass after this leaf's gradient has been
  /// accumulated into grad(), as torch.Tensor.register_post_accumulate_grad_hook: how
  /// DistributedDataParallel starts reducing a gradient while backward goes on. The hook
  /// holds no reference to this tensor. Error when this tensor is not a leaf that requires
  /// grad.
  HookHandle register_post_accumulate_grad_hook(PostAccumulateGradHook hook);

  /// The implementation (for the core and tests).
  const std::shared_ptr<detail::TensorImpl>& impl() const noexcept { return impl_; }

 private:
  const detail::TensorImpl& checked() const;
  std::shared_ptr<detail::TensorImpl> impl_;
};

/// The instantiations of to_vector() and item() that libhetero_core.so exports.
/// @{
extern template std::vector<float> Tensor::to_vector<float>() const;
extern template std::vector<double> Tensor::to_vector<double>() const;
/// to_vector<std::int32_t>, exported.
extern template std::vector<std::int32_t> Tensor::to_vector<std::int32_t>() const;
/// to_vector<std::int64_t>, exported.
extern template std::vector<std::int64_t> Tensor::to_vector<std::int64_t>() const;
/// to_vector<std::uint8_t>, exported.
extern template std::vector<std::uint8_t> Tensor::to_vector<std::uint8_t>() const;
/// to_vector<std::int8_t>, exported.
extern template std::vector<std::int8_t> Tensor::to_vector<std::int8_t>() const;
extern template std::vector<bool> Tensor::to_vector<bool>() const;
extern template float Tensor::item<float>() const;
extern template double Tensor::item<double>() const;
/// item<std::int32_t>, exported.
extern template std::int32_t Tensor::item<std::int32_t>() const;
/// item<std::int64_t>, exported.
extern template std::int64_t Tensor::item<std::int64_t>() const;
extern template bool Tensor::item<bool>() const;
/// item<std::uint8_t>, exported.
extern template std::uint8_t Tensor::item<std::uint8_t>() const;
/// item<std::int8_t>, exported.
extern template std::int8_t Tensor::item<std::int8_t>() const;
/// @}

/// Prints as torch 1.13's str(tensor) with its default print options (precision 4,
/// threshold 1000, edge items 3, line width 80; torch/_tensor_str.py):
/// `tensor([[1., 1., 1.],\n        [1., 1., 1.]], device='cuda:0')`. One number format for
/// all elements (integer-valued "1.", 4 decimals, or scientific notation), integers exact,
/// rows wrapped at 80 columns, more than 1000 elements summarised with "...". Adds
/// `device='...'` when not cpu:0, `size=(...)` for an empty tensor not of shape [0],
/// `dtype=...` when not float32 (int64 and bool print theirs only when empty), then
/// `grad_fn=<name>` (hetero's node names, e.g. "MulBackward" for torch's "MulBackward0") or
/// `requires_grad=True`. Reads from the device (waits for it).
HETERO_API std::ostream& operator<<(std::ostream& os, const Tensor& t);
/// Prints a shape as "[2, 3]".
HETERO_API std::ostream& operator<<(std::ostream& os, const Shape& s);

}  // namespace hetero
