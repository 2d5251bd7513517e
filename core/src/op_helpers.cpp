// SPDX-License-Identifier: Apache-2.0
#include "op_helpers.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include <hetero/autograd.hpp>
#include <hetero/devices.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "backend_calls.hpp"
#include "empty_buffer.hpp"
#include "profiler_record.hpp"
#include "registry.hpp"

namespace hetero::detail {

bool runs_float64(const Tensor& a, BinaryOp op) {
  const Storage& on = storage_of(a);
  return calls::has_kernel(on, OpFamily::cast, DType::float64) &&
         calls::has_kernel(on, op, DType::float64) &&
         calls::has_kernel(on, OpFamily::fill, DType::float64);
}

std::string shape_str(const Shape& s) {
  std::ostringstream os;
  os << '[';
  for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << ']';
  return os.str();
}

std::string list_str(const std::vector<std::int64_t>& v) {
  return shape_str(Shape(v.begin(), v.end()));
}

// NumPy broadcasting: align right; sizes equal, or one of them 1.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const std::int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError(std::string(op) + ": shapes " + shape_str(a) + " and " + shape_str(b) +
                       " cannot be broadcast together (dimension " + std::to_string(i) + ": " +
                       std::to_string(da) + " vs " + std::to_string(db) + ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {

// Row-major strides of `shape` into st[0 .. shape.size()) (a vector or a StridedView's array).
template <class Strides>
void write_contiguous_strides(const Shape& shape, Strides& st) {
  std::int64_t acc = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    st[i] = acc;
    acc *= std::max<std::int64_t>(shape[i], 1);
  }
}

}  // namespace

std::vector<std::int64_t> contiguous_strides(const Shape& shape) {
  std::vector<std::int64_t> st(shape.size());
  write_contiguous_strides(shape, st);
  return st;
}

std::int64_t checked_numel(const Shape& shape) {
  if (shape.size() > static_cast<std::size_t>(kMaxDims))
    throw ShapeError("shape " + shape_str(shape) + " has " + std::to_string(shape.size()) +
                     " dimensions; at most " + std::to_string(kMaxDims) + " are supported");
  std::int64_t n = 1;
  for (auto s : shape) {
    if (s < 0) throw ShapeError("shape " + shape_str(shape) + " has a negative dimension");
    if (s != 0 && n > std::numeric_limits<std::int64_t>::max() / s)
      throw ShapeError("shape " + shape_str(shape) + " has too many elements");
    n *= s;
  }
  return n;
}

std::shared_ptr<Storage> allocate_storage(std::shared_ptr<LoadedPlugin> plugin, const Device& d,
                                          std::size_t bytes) {
  // Note [Empty tensors]: the backend is never asked for 0 bytes.
  std::unique_ptr<Buffer> buffer = bytes == 0 ? std::make_unique<EmptyBuffer>(d.index())
                                              : calls::allocate(*plugin, d.index(), bytes);
  return std::make_shared<Storage>(std::move(plugin), std::move(buffer), d);
}

std::shared_ptr<Storage> allocate_storage(const Device& d, std::size_t bytes) {
  return allocate_storage(plugin_for(d), d, bytes);
}

std::size_t checked_bytes(const Shape& shape, DType dtype) {
  const std::int64_t n = checked_numel(shape);
  const auto es = static_cast<std::int64_t>(element_size(dtype));
  if (n > std::numeric_limits<std::int64_t>::max() / es)
    throw OutOfMemoryError("tensor of shape " + shape_str(shape) +
                           " needs more bytes than can be addressed");
  return static_cast<std::size_t>(n * es);
}

Tensor contiguous_tensor(std::shared_ptr<Storage> storage, Shape shape, DType dtype) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->strides = contiguous_strides(shape);
  impl->shape = std::move(shape);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor new_tensor(Shape shape, DType dtype, const Device& device) {
  const std::size_t bytes = checked_bytes(shape, dtype);
  return contiguous_tensor(allocate_storage(device, bytes), std::move(shape), dtype);
}

Tensor new_tensor(Shape shape, DType dtype, const TensorOptions& options, const char* op) {
  if (!options.pinned_memory()) return new_tensor(std::move(shape), dtype, options.device());
  // As torch ("Only dense CPU tensors can be pinned"); pinned memory is the host's, whose
  // device is cpu:0 (the virtual cpu:1, cpu:2... are not the host's memory).
  if (const Device d = options.device(); !(d == Device::cpu()))
    throw InvalidDeviceError(std::string(op) +
                             ": pinned memory is host memory, so pinned_memory(true) needs "
                             "device cpu:0, got " +
                             d.str());
  return new_pinned_tensor(std::move(shape), dtype);
}

Tensor new_tensor_like(Shape shape, DType dtype, const Tensor& like) {
  const std::size_t bytes = checked_bytes(shape, dtype);
  const Storage& s = *like.impl()->storage;
  return contiguous_tensor(allocate_storage(s.plugin, s.device, bytes), std::move(shape), dtype);
}

const TensorImpl& impl_of(const Tensor& t, const char* op) {
  if (!t.defined()) throw Error(std::string(op) + ": undefined tensor");
  return *t.impl();
}

// A device as error messages name it: with its index whenever its backend has more than
// one device ("cpu:0 and cpu:1", not "cpu and cpu:1").
std::string device_in_message(const Device& d) {
  return device_count(d.type()) > 1 ? d.type() + ":" + std::to_string(d.index()) : d.str();
}

std::pair<std::int64_t, std::int64_t> int_extrema(const Tensor& t) {
  if (t.numel() == 0) throw InternalError("int_extrema: an empty tensor has no extrema");
  NoGradGuard no_grad;
  const std::vector<std::int64_t> v =
      stack({min(t), max(t)}).to(DType::int64).to_vector<std::int64_t>();
  return {v[0], v[1]};
}

void check_same_device(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  const Device* first_device = nullptr;
  for (const Tensor* t : tensors) {
    // Compared in place, not through Tensor::device() (a copy of the type name): this runs
    // before every operation on two or more tensors.
    const Device& device = impl_of(*t, op).storage->device;
    if (!first) {
      first = t;
      first_device = &device;
      continue;
    }
    if (device != *first_device)
      throw DeviceMismatchError(
          std::string(op) +
          ": expected all tensors to be on the same device, but found at least two devices, " +
          device_in_message(first->device()) + " and " + device_in_message(t->device()) + "!");
  }
}

namespace {

// A view of t's buffer, offset and dtype with `ndim` dimensions; shape and strides unset.
StridedView view_base(const Tensor& t, std::size_t ndim) {
  const auto& impl = *t.impl();
  StridedView v;
  v.buffer = input_storage_of(*impl.storage).buffer.get();
  v.offset = impl.offset;
  v.dtype = impl.dtype;
  v.ndim = static_cast<int>(ndim);
  return v;
}

}  // namespace

StridedView view_of(const Tensor& t, const Shape& shape, const std::vector<std::int64_t>& strides) {
  StridedView v = view_base(t, shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    v.shape[i] = shape[i];
    v.strides[i] = strides[i];
  }
  return v;
}

StridedView view_of(const Tensor& t) { return view_of(t, t.impl()->shape, t.impl()->strides); }

StridedView contiguous_view_of(const Tensor& t, const Shape& shape) {
  StridedView v = view_base(t, shape.size());
  std::copy(shape.begin(), shape.end(), v.shape.begin());
  write_contiguous_strides(shape, v.strides);
  return v;
}

std::int64_t wrap_dim(std::int64_t d, std::int64_t ndim, const char* op) {
  const std::int64_t n = std::max<std::int64_t>(ndim, 1);
  if (d < -n || d >= n)
    throw IndexError(std::string(op) + ": dimension " + std::to_string(d) +
                     " out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                     std::to_string(n - 1) + "])");
  return d < 0 ? d + n : d;
}

std::string format_double(double v) {
  // The fewest digits that read back as v (0.1 is "0.1", not "0.10000000000000001").
  std::string s;
  for (int digits = 6; digits <= 17; ++digits) {
    std::ostringstream os;
    os.precision(digits);
    os << v;
    s = os.str();
    if (v != v || std::stod(s) == v) break;
  }
  return s;
}

std::size_t first_non_bool_byte(const void* bytes, std::size_t count) {
  const auto* b = static_cast<const unsigned char*>(bytes);
  std::size_t k = 0;
  while (k < count && b[k] <= 1) ++k;
  return k;
}

const Storage& input_storage_of(const Storage& s) {
  if (s.plugin->retired.load(std::memory_order_relaxed)) [[unlikely]]
    s.stream().synchronize();  // Note [Retired plugins]
  return s;
}

const Storage& storage_of(const Tensor& t) {
  const Storage& s = *t.impl()->storage;
  if (s.plugin->retired.load(std::memory_order_relaxed)) [[unlikely]]
    default_stream_for(s.device).synchronize();  // Note [Retired plugins]
  return s;
}

void fill(const Tensor& t, double v) {
  if (t.numel() == 0) return;
  const prof::Scope op_scope("fill_", t);  // torch.profiler's aten::fill_ (a scalar operand's)
  // The integer part for integer dtypes: truncated, saturated at int64's range, NaN -> 0
  // (no undefined conversion); bool takes v != 0, so NaN is true (as torch.full).
  std::int64_t i = 0;
  if (t.dtype() == DType::bool_)
    i = v != 0.0 ? 1 : 0;
  else if (v >= 9223372036854775807.0)
    i = std::numeric_limits<std::int64_t>::max();
  else if (v <= -9223372036854775808.0)
    i = std::numeric_limits<std::int64_t>::min();
  else if (v == v)
    i = static_cast<std::int64_t>(v);
  calls::fill(storage_of(t), view_of(t), Scalar{v, i});
}

void fill(const Tensor& t, std::int64_t v) {
  if (t.numel() == 0) return;
  const prof::Scope op_scope("fill_", t);
  calls::fill(storage_of(t), view_of(t),
              Scalar{static_cast<double>(v), t.dtype() == DType::bool_ ? (v != 0 ? 1 : 0) : v});
}

std::pair<std::int64_t, std::int64_t> element_span(const TensorImpl& t) {
  std::int64_t lo = t.offset, hi = t.offset;
  for (std::size_t d = 0; d < t.shape.size(); ++d) {
    const std::int64_t reach = (t.shape[d] - 1) * t.strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi};
}

void check_no_internal_overlap(const std::string& op, const TensorImpl& t, const char* which) {
  for (std::size_t d = 0; d < t.shape.size(); ++d)
    if (t.shape[d] > 1 && t.strides[d] == 0)
      throw ValueError(op +
                       ": unsupported operation: more than one element of the written-to "
                       "tensor" +
                       (*which ? std::string(" ") + which : std::string()) +
                       " refers to a single memory location (as torch); clone() it first");
}

Tensor strided_view(const Tensor& t, Shape shape, std::vector<std::int64_t> strides,
                    std::int64_t offset) {
  auto impl = std::make_shared<TensorImpl>(*t.impl());
  impl->autograd = nullptr;
  impl->shape = std::move(shape);
  impl->strides = std::move(strides);
  impl->offset = offset;
  return Tensor(std::move(impl));
}

}  // namespace hetero::detail
