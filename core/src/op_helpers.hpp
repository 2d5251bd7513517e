// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers shared by the operations: validation (check, then dispatch) and the
// translation from tensors to the plugin's StridedView.
#include <initializer_list>
#include <string>
#include <utility>

#include <hetero/sdk/kernel_args.hpp>
#include <hetero/tensor.hpp>
#include <hetero/tensor_options.hpp>

#include "tensor_impl.hpp"

namespace hetero::detail {

/// Contiguous row-major strides for `shape`.
std::vector<std::int64_t> contiguous_strides(const Shape& shape);
/// Checks dims (<= kMaxDims, sizes >= 0) and returns numel; ShapeError otherwise.
std::int64_t checked_numel(const Shape& shape);
/// NumPy broadcasting of two shapes (aligned right; sizes equal or one of them 1);
/// ShapeError naming `op` and both shapes otherwise.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b);
/// Bytes of a tensor of `shape` and `dtype`; ShapeError for a bad shape, OutOfMemoryError
/// when the count overflows.
std::size_t checked_bytes(const Shape& shape, DType dtype);
/// A contiguous tensor of `shape` over all of `storage` (offset 0).
Tensor contiguous_tensor(std::shared_ptr<Storage> storage, Shape shape, DType dtype);
/// A new uninitialised contiguous tensor (looks `device` up in the registry).
Tensor new_tensor(Shape shape, DType dtype, const Device& device);
/// A new uninitialised contiguous cpu tensor in pinned host memory from the first loaded
/// backend that provides it (pinned.cpp); DeviceUnavailableError when none does.
Tensor new_pinned_tensor(Shape shape, DType dtype);
/// The result of a factory given `options`: new_pinned_tensor when options ask for pinned
/// memory (InvalidDeviceError unless the device is cpu; `op` names the factory), else
/// new_tensor on options.device().
Tensor new_tensor(Shape shape, DType dtype, const TensorOptions& options, const char* op);
/// new_tensor on `like`'s device, through the plugin of like's storage (no registry lookup:
/// the fast path of every op's result; a pinned `like` gives an ordinary cpu tensor, as
/// torch's ops do).
Tensor new_tensor_like(Shape shape, DType dtype, const Tensor& like);
/// out = op(a, b) written into `out`'s own elements (no new tensor), for the optimisers'
/// updates under NoGradGuard (as torch's in-place p.add_(d, alpha)): `a` and `b` broadcast to
/// out's shape, the op's result dtype is out's, all on out's device. `out` may be `a` or `b`
/// itself (element-wise kernels read each element before writing it) but must not overlap
/// them otherwise. Not recorded by autograd; bumps out's version. InternalError when the
/// shapes, dtypes or devices do not fit.
void binary_into(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out);
/// out[... index[...] ...] += src[...] along dimension `d`, in out's own elements (the kernel
/// of scatter_add without its checks): the caller guarantees what scatter_add checks (int64
/// index of out's rank, sizes, every index in [0, out.size(d)), one dtype and device). Not
/// recorded by autograd; bumps out's version.
void scatter_add_into(Tensor& out, std::int64_t d, const Tensor& index, const Tensor& src);
/// {minimum, maximum} of a non-empty integer tensor `t` (any shape; not recorded by autograd),
/// in one host read that waits for t's device: what the index checks (gather, embedding,
/// max_unpool2d, MultiMarginLoss, one_hot) read. InternalError for an empty `t`.
std::pair<std::int64_t, std::int64_t> int_extrema(const Tensor& t);
/// Throws DeviceMismatchError naming the op and both devices unless all are on one device.
void check_same_device(const char* op, std::initializer_list<const Tensor*> tensors);
/// Throws Error if undefined.
const TensorImpl& impl_of(const Tensor& t, const char* op);
/// A view of `t`'s storage with the given shape, element strides and element offset (as
/// torch.as_strided); not recorded by autograd. The caller keeps it inside the storage.
Tensor strided_view(const Tensor& t, Shape shape, std::vector<std::int64_t> strides,
                    std::int64_t offset);
/// The element offsets [first, last] that `t` (with elements) spans in its storage.
std::pair<std::int64_t, std::int64_t> element_span(const TensorImpl& t);
/// ValueError "<op>: unsupported operation: more than one element of the written-to tensor
/// <which> refers to a single memory location" when `t` has a stride 0 over more than one
/// element (an expand()ed view), as torch's assert_no_internal_overlap: writing into it would
/// keep one arbitrary value per location. `which` names the argument ("(out)") or is "".
void check_no_internal_overlap(const std::string& op, const TensorImpl& t, const char* which);
/// The view of a tensor.
StridedView view_of(const Tensor& t);
/// The view of a tensor with its shape/strides replaced (same storage and offset).
StridedView view_of(const Tensor& t, const Shape& shape, const std::vector<std::int64_t>& strides);
/// The view of contiguous `t`'s elements as `shape` (same element count and order, e.g. a
/// reduction's result seen with its reduced dimensions kept), without a strides vector.
StridedView contiguous_view_of(const Tensor& t, const Shape& shape);
/// Normalises a possibly negative dimension; IndexError when out of [-ndim, ndim).
std::int64_t wrap_dim(std::int64_t d, std::int64_t ndim, const char* op);
/// The storage of a defined tensor: its device, plugin and buffer (what backend_calls.hpp's
/// kernels run on).
///
/// Note [Retired plugins]: tensors made before unload_plugins() keep their plugin instance
/// (Note [Plugin lifetime]) while new tensors of the same device get a new instance, with
/// its own queue: the two queues do not order each other's work (issue #25: (x + y).sum()
/// of an old x and a new y read x before its fill ran). So a kernel input from a retired
/// plugin waits for that plugin's stream first (view_of), and a kernel that runs on a
/// retired plugin (storage_of of its output) waits for the device's current plugin first.
/// And while a retired instance lives, each kernel completes before its call returns
/// (backend_calls.hpp's after_kernel): a buffer's free is ordered on its own instance's
/// queue only, not on the queue of a kernel of the other instance that reads it. Free on
/// the usual path: one relaxed load per operand and per kernel.
const Storage& storage_of(const Tensor& t);
/// The storage of a kernel input read by the kernel's own plugin, after the retired-plugin
/// wait of Note [Retired plugins] (view_of applies it; for callers that pass buffers, as
/// GEMM's).
const Storage& input_storage_of(const Storage& s);
/// Sets every element of `t` to `v` on its device (nothing for an empty tensor), converted
/// as Backend::fill does; no range check (the public full() has it). An integer `v` stays
/// exact for int64 (a double would round above 2^53) and wraps into narrower integers.
void fill(const Tensor& t, double v);
void fill(const Tensor& t, std::int64_t v);
/// "[2, 3]".
std::string shape_str(const Shape& s);
/// A list of integer arguments (dims, repeats, split sizes, pad amounts) as shape_str prints
/// a shape: "[2, -1]".
std::string list_str(const std::vector<std::int64_t>& v);
/// Whether `a`'s device runs cast, fill and `op` in float64: where composed ops widen 16-bit
/// or float32 work to float64 (prod, cumsum), else they take float32.
bool runs_float64(const Tensor& a, BinaryOp op);
/// `v` for an error message, with enough digits to tell it apart: "1e+10", "-2.25", "nan".
std::string format_double(double v);
/// torch's overflow rule for a value put into dtype `t` (full, masked_fill): DTypeError
/// "<op>: value ... cannot be converted to <t> without overflow" for NaN, inf and finite
/// values outside an integer dtype's range, and finite values beyond a floating dtype's
/// largest; bool takes anything.
void check_value_fits(const char* op, double value, DType t);
/// The largest finite value of floating dtype `t` (float16 65504, bfloat16 and float32 about
/// 3.39e38 and 3.40e38, float64 DBL_MAX); InternalError for another dtype.
double largest_finite(DType t);
/// The index of the first of `count` bytes that is not a bool (0 or 1: the kernels' C++
/// bool), or `count` when all are: what from_host and load_file check bool input with.
std::size_t first_non_bool_byte(const void* bytes, std::size_t count);

}  // namespace hetero::detail
