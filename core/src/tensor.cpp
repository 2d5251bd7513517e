// SPDX-License-Identifier: Apache-2.0
#include <hetero/tensor.hpp>

#include <algorithm>
#include <cstring>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>
#include <hetero/sdk/dtype_dispatch.hpp>
#include <hetero/sdk/element_conversion.hpp>
#include <hetero/sdk/half.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "autograd/view_base.hpp"
#include "backend_calls.hpp"
#include "copy.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "registry.hpp"
#include "transfer_counters.hpp"

namespace hetero {
using detail::Gradients;
namespace formulas = detail::formulas;
using detail::impl_of;
using detail::record;

namespace {
// A new TensorImpl viewing the same storage, without autograd state (views record
// their own node); a view of `of`'s base (Note [View bases]).
std::shared_ptr<detail::TensorImpl> view_impl(const Tensor& of) {
  auto impl = std::make_shared<detail::TensorImpl>(*of.impl());
  impl->autograd = nullptr;
  return detail::as_view(Tensor(std::move(impl)), of).impl();
}
}  // namespace

const detail::TensorImpl& Tensor::checked() const { return impl_of(*this, "Tensor"); }

const Shape& Tensor::shape() const { return checked().shape; }
const std::vector<std::int64_t>& Tensor::strides() const { return checked().strides; }
std::int64_t Tensor::dim() const { return static_cast<std::int64_t>(checked().shape.size()); }
std::int64_t Tensor::size(std::int64_t d) const {
  const auto& s = checked().shape;
  if (s.empty()) throw IndexError("size(" + std::to_string(d) + "): tensor is 0-dimensional");
  return s[static_cast<std::size_t>(detail::wrap_dim(d, dim(), "size"))];
}
std::int64_t Tensor::numel() const { return checked().numel(); }
DType Tensor::dtype() const { return checked().dtype; }
Device Tensor::device() const { return checked().storage->device; }
bool Tensor::is_contiguous() const {
  const auto& i = checked();
  if (i.numel() == 0) return true;  // no element is out of order (as torch)
  std::int64_t expected = 1;
  for (std::size_t d = i.shape.size(); d-- > 0;) {
    if (i.shape[d] != 1 && i.strides[d] != expected) return false;
    expected *= i.shape[d];
  }
  return true;
}
bool Tensor::shares_storage(const Tensor& other) const {
  return defined() && other.defined() && impl_->storage == other.impl_->storage;
}

Tensor Tensor::copy_to(const Device& d) const {
  const auto& src_impl = checked();
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor src = contiguous();
    out = detail::new_tensor(src_impl.shape, src_impl.dtype, d);
    const std::size_t es = element_size(src_impl.dtype);
    detail::copy_bytes(*src.impl()->storage, static_cast<std::size_t>(src.impl()->offset) * es,
                       *out.impl()->storage, 0, static_cast<std::size_t>(numel()) * es);
  }
  // The gradient goes back to the source device (model parallel: Note [Autograd]).
  return record("ToCopyBackward", out, {*this}, [&] {
    return [from = device()](const Tensor& g) { return formulas::to_device(g, from); };
  });
}

Tensor Tensor::to(const Device& d) const {
  if (device() == d) return *this;
  return copy_to(d);
}

Tensor Tensor::to(DType t) const {
  if (dtype() == t) return *this;
  return cast(*this, t);
}

Tensor Tensor::cpu() const { return to(Device::cpu()); }
Tensor Tensor::cuda(int i) const { return to(Device::cuda(i)); }

Tensor Tensor::clone() const {
  const detail::prof::Scope op_scope("clone", *this);
  const auto& i = checked();
  Tensor out = detail::new_tensor_like(i.shape, i.dtype, *this);
  if (out.numel() > 0)
    detail::calls::cast(detail::storage_of(out), detail::view_of(*this), detail::view_of(out));
  return record("CloneBackward", out, {*this},
                [&] { return [](const Tensor& g) { return formulas::identity(g); }; });
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;  // no event: nothing happens (as torch's, no aten call)
  const detail::prof::Scope op_scope("contiguous", *this);
  return clone();
}

void Tensor::set_data(const Tensor& other) {
  checked();
  impl_of(other, "set_data");
  auto meta = impl_->autograd;                   // this tensor keeps its requires_grad and grad
  const std::uint64_t history = impl_->history;  // its views' histories stay as they were
  *impl_ = *other.impl_;
  impl_->autograd = std::move(meta);
  impl_->base = nullptr;  // a tensor of its own (Note [View bases]), as detach()
  impl_->view_without_grad = false;
  impl_->history = history;
}

namespace {
// copy_'s data movement: `src`'s values into `dst` (same shape), converted to dst's dtype,
// from any device; no autograd.
void copy_values(Tensor& dst, const Tensor& src) {
  NoGradGuard no_grad;
  const auto& i = *dst.impl();
  ++i.storage->version;        // Note [Saved tensor versions]
  if (i.numel() == 0) return;  // Note [Empty tensors]
  if (src.device() != dst.device() && src.dtype() == i.dtype && dst.is_contiguous()) {
    // Between devices into a dense destination: one transfer straight into this storage
    // (a pinned destination or source then copies at DMA speed), not a staging tensor on
    // this device plus a copy.
    const Tensor from = src.contiguous();
    const std::size_t es = element_size(i.dtype);
    detail::copy_bytes(*from.impl()->storage, static_cast<std::size_t>(from.impl()->offset) * es,
                       *i.storage, static_cast<std::size_t>(i.offset) * es,
                       static_cast<std::size_t>(dst.numel()) * es);
    return;
  }
  Tensor local = src.to(dst.device());
  const auto& l = *local.impl();
  if (l.storage == i.storage) {  // one storage: the same view is a no-op; overlap goes via a copy
    if (l.offset == i.offset && l.strides == i.strides) return;
    const auto last = [](const detail::TensorImpl& t) {
      std::int64_t end = t.offset;
      for (std::size_t d = 0; d < t.shape.size(); ++d) end += (t.shape[d] - 1) * t.strides[d];
      return end;
    };
    // Element ranges that intersect: copied through a temporary, so that x.narrow(0, 1, 4)
    // .copy_(x.narrow(0, 0, 4)) shifts and m.copy_(m.t()) transposes (torch raises there;
    // docs/semantics.md). Before: the kernel read elements it had already overwritten.
    if (l.offset <= last(i) && i.offset <= last(l)) local = local.clone();
  }
  detail::calls::cast(detail::storage_of(dst), detail::view_of(local), detail::view_of(dst));
}

}  // namespace

void Tensor::copy_(const Tensor& src) {
  const auto& i = checked();
  impl_of(src, "copy_");
  if (src.shape() != i.shape)
    throw ShapeError("copy_: source shape " + detail::shape_str(src.shape()) +
                     " does not match destination shape " + detail::shape_str(i.shape));
  // Internal overlap (an expand()ed destination) is refused as torch refuses it: which of
  // the values a location keeps would depend on the kernel's order.
  detail::check_no_internal_overlap("copy_", i, "");
  // Note [copy_ and autograd]: as torch's, copy_ rebases the destination's history on the
  // source: a CopyBackwards node whose gradient goes to the source (converted back to its
  // dtype and device) and zeros to what the destination held before. Into a view, the
  // history rebased is the base's: CopySlices (Note [View bases]). A leaf that requires
  // grad, or a view of one, is refused as torch refuses it; under NoGradGuard, or with
  // neither side requiring grad, it is a plain copy. An integer destination takes no
  // history (torch's: it cannot require grad). Tensors that saved the destination for a
  // backward see its version move, and that backward raises (Note [Saved tensor versions]).
  bool records = false;
  if (is_grad_enabled()) {
    if (requires_grad() && is_leaf())
      throw Error(
          "copy_: a leaf tensor that requires grad is being used in an in-place operation (as "
          "torch); copy into it under NoGradGuard, as an optimiser step does");
    records = is_floating_point(i.dtype) && (requires_grad() || src.requires_grad());
    if (records && i.base) detail::check_copy_into_view(*this);
  }
  if (records && i.base) {
    const bool base_had_history = Tensor(i.base).requires_grad();
    copy_values(*this, src);
    detail::record_copy_slices(*this, src, base_had_history);
    return;
  }
  const bool had_history = requires_grad();
  copy_values(*this, src);
  if (!records) return;
  const Tensor before = *this;  // its edge is the old history until record() replaces it
  record("CopyBackwards", *this, {before, src}, [&] {
    return [had_history, to_dtype = src.dtype(), to_device = src.device()](const Tensor& g) {
      return Gradients{had_history ? zeros_like(g) : Tensor(), g.to(to_dtype).to(to_device)};
    };
  });
  detail::history_rebased(*this);
}

void* Tensor::host_data_ptr() const {
  const auto& i = checked();
  auto& storage = *i.storage;
  if (i.numel() == 0 && storage.device.is_cpu()) return nullptr;  // Note [Empty tensors]
  void* host = storage.buffer->host_pointer();
  if (host == nullptr)
    throw InvalidDeviceError("host_data_ptr: the memory of a tensor on " + storage.device.str() +
                             " is not host memory; copy the tensor to cpu first");
  {
    const detail::prof::Scope wait("sync", "synchronize", &storage);
    storage.stream().synchronize();
  }
  detail::count_host_sync(storage.device);
  return static_cast<char*>(host) + static_cast<std::size_t>(i.offset) * element_size(i.dtype);
}

// --- views ---------------------------------------------------------------------------

Tensor Tensor::view(const Shape& shape) const {
  const detail::prof::Scope op_scope("view", *this);
  const auto& i = checked();
  Shape s = shape;
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t d = 0; d < s.size(); ++d) {
    if (s[d] == -1) {
      if (infer >= 0)
        throw ShapeError("view: only one dimension can be -1 in " + detail::shape_str(shape));
      infer = static_cast<int>(d);
    } else if (s[d] < 0) {
      throw ShapeError("view: invalid shape " + detail::shape_str(shape));
    } else {
      known *= s[d];
    }
  }
  const std::int64_t n = i.numel();
  if (infer >= 0) {
    if (known == 0 || n % known != 0)
      throw ShapeError("view: shape " + detail::shape_str(shape) +
                       " is invalid for input of size " + std::to_string(n));
    s[static_cast<std::size_t>(infer)] = n / known;
  }
  if (detail::checked_numel(s) != n)
    throw ShapeError("view: shape " + detail::shape_str(shape) + " is invalid for input of size " +
                     std::to_string(n));
  if (!is_contiguous())
    throw ShapeError("view: tensor of shape " + detail::shape_str(i.shape) +
                     " is not contiguous; use reshape() or contiguous()");
  auto impl = view_impl(*this);
  impl->shape = s;
  impl->strides = detail::contiguous_strides(s);
  return record("ViewBackward", Tensor(std::move(impl)), {*this}, [&] {
    return [from = i.shape](const Tensor& g) { return formulas::view(g, from); };
  });
}

Tensor Tensor::reshape(const Shape& shape) const {
  const detail::prof::Scope op_scope("reshape", *this);
  return contiguous().view(shape);
}

Tensor Tensor::transpose(std::int64_t d0, std::int64_t d1) const {
  const detail::prof::Scope op_scope("transpose", *this);
  const auto n = dim();
  d0 = detail::wrap_dim(d0, n, "transpose");  // a 0-d tensor takes dims -1 and 0, as torch
  d1 = detail::wrap_dim(d1, n, "transpose");
  auto impl = view_impl(*this);  // a view even of a 0-d tensor or for d0 == d1, as torch
  if (n > 0) {
    std::swap(impl->shape[static_cast<std::size_t>(d0)], impl->shape[static_cast<std::size_t>(d1)]);
    std::swap(impl->strides[static_cast<std::size_t>(d0)],
              impl->strides[static_cast<std::size_t>(d1)]);
  }
  return record("TransposeBackward", Tensor(std::move(impl)), {*this}, [&] {
    return [d0, d1](const Tensor& g) { return formulas::transpose(g, d0, d1); };
  });
}

Tensor Tensor::t() const {
  const detail::prof::Scope op_scope("t", *this);
  if (dim() > 2)
    throw ShapeError("t() expects a tensor with <= 2 dimensions, but it has " +
                     std::to_string(dim()));
  return transpose(0, dim() < 2 ? 0 : 1);  // of 0-d and 1-d tensors a view of the same shape
}

Tensor Tensor::unsqueeze(std::int64_t d) const {
  const detail::prof::Scope op_scope("unsqueeze", *this);
  const auto& i = checked();
  d = detail::wrap_dim(d, dim() + 1, "unsqueeze");
  auto impl = view_impl(*this);
  const auto pos = static_cast<std::size_t>(d);
  const std::int64_t stride = pos < i.shape.size() ? i.strides[pos] * i.shape[pos] : 1;
  impl->shape.insert(impl->shape.begin() + d, 1);
  impl->strides.insert(impl->strides.begin() + d, stride);
  detail::checked_numel(impl->shape);
  return record("UnsqueezeBackward", Tensor(std::move(impl)), {*this},
                [&] { return [d](const Tensor& g) { return formulas::unsqueeze(g, d); }; });
}

Tensor Tensor::squeeze(std::int64_t d) const {
  const detail::prof::Scope op_scope("squeeze", *this);
  const auto& i = checked();
  d = detail::wrap_dim(d, dim(), "squeeze");  // a 0-d tensor takes dims -1 and 0, as torch
  auto impl = view_impl(*this);               // a view even where nothing is squeezed, as torch
  if (i.shape.empty() || i.shape[static_cast<std::size_t>(d)] != 1)
    return record("SqueezeBackward", Tensor(std::move(impl)), {*this},
                  [] { return [](const Tensor& g) { return Gradients{g}; }; });
  impl->shape.erase(impl->shape.begin() + d);
  impl->strides.erase(impl->strides.begin() + d);
  return record("SqueezeBackward", Tensor(std::move(impl)), {*this},
                [&] { return [d](const Tensor& g) { return formulas::squeeze(g, d); }; });
}

Tensor Tensor::narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const {
  const detail::prof::Scope op_scope("narrow", *this);
  const auto& i = checked();
  if (i.shape.empty()) throw IndexError("narrow() cannot be applied to a 0-dim tensor (as torch)");
  const auto d = static_cast<std::size_t>(detail::wrap_dim(dim, this->dim(), "narrow"));
  const std::int64_t n = i.shape[d];
  if (start < 0) start += n;
  if (start < 0 || length < 0 || start > n || length > n - start)
    throw IndexError("narrow: start " + std::to_string(start) + " and length " +
                     std::to_string(length) + " do not fit dimension " + std::to_string(dim) +
                     " of size " + std::to_string(n));  // (no start + length: it may overflow)
  auto impl = view_impl(*this);
  impl->offset += start * i.strides[d];
  impl->shape[d] = length;
  Tensor out = record("NarrowBackward", Tensor(std::move(impl)), {*this}, [&] {
    return [d, start, length, from = i.shape](const Tensor& g) {
      return formulas::narrow(g, from, static_cast<std::int64_t>(d), start, length);
    };
  });
  detail::set_slice(out, [d, start, length](const Tensor& full) {
    return full.narrow(static_cast<std::int64_t>(d), start, length);
  });
  return out;
}

Tensor Tensor::operator[](std::int64_t idx) const {
  const detail::prof::Scope op_scope("select", *this);
  const auto& i = checked();
  if (i.shape.empty()) throw IndexError("invalid index of a 0-dim tensor");
  const std::int64_t n = i.shape[0];
  if (idx < -n || idx >= n)
    throw IndexError("index " + std::to_string(idx) +
                     " is out of bounds for dimension 0 with size " + std::to_string(n));
  if (idx < 0) idx += n;
  auto impl = view_impl(*this);
  impl->offset += idx * i.strides[0];
  impl->shape.erase(impl->shape.begin());
  impl->strides.erase(impl->strides.begin());
  Tensor out = record("SelectBackward", Tensor(std::move(impl)), {*this}, [&] {
    return [idx, from = i.shape](const Tensor& g) { return formulas::select(g, from, idx); };
  });
  detail::set_slice(out, [idx](const Tensor& full) { return full[idx]; });
  return out;
}

// --- host reads ----------------------------------------------------------------------

namespace {

// Host reads convert by the rule every backend's cast applies (convert_element: NaN -> 0
// and saturation for float -> integer, x != 0 for bool), so to_vector<T>() equals
// to(dtype_of<T>).to_vector<T>().
template <class T, class S>
void convert(const void* src, std::size_t n, std::vector<T>& out) {
  const S* s = static_cast<const S*>(src);
  for (std::size_t k = 0; k < n; ++k) {
    out[k] = convert_element<T>(s[k]);
  }
}

}  // namespace

template <class T>
std::vector<T> Tensor::to_vector() const {
  const Tensor c = contiguous();
  const auto& i = *c.impl();
  const auto n = static_cast<std::size_t>(i.numel());
  const std::size_t es = element_size(i.dtype);
  std::vector<unsigned char> raw(n * es);
  detail::read_bytes(*i.storage, static_cast<std::size_t>(i.offset) * es, raw.data(), raw.size());
  std::vector<T> out(n);
  dispatch_dtype(i.dtype, [&](auto tag) { convert<T, decltype(tag)>(raw.data(), n, out); });
  return out;
}

template <class T>
T Tensor::item() const {
  if (numel() != 1)
    throw ShapeError("item(): a tensor with " + std::to_string(numel()) +
                     " elements cannot be converted to a scalar");
  return to_vector<T>()[0];
}

template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;
template std::vector<std::int32_t> Tensor::to_vector<std::int32_t>() const;
template std::vector<std::int64_t> Tensor::to_vector<std::int64_t>() const;
template std::vector<std::uint8_t> Tensor::to_vector<std::uint8_t>() const;
template std::vector<std::int8_t> Tensor::to_vector<std::int8_t>() const;
template std::vector<bool> Tensor::to_vector<bool>() const;
template float Tensor::item<float>() const;
template double Tensor::item<double>() const;
template std::int32_t Tensor::item<std::int32_t>() const;
template std::int64_t Tensor::item<std::int64_t>() const;
template bool Tensor::item<bool>() const;
template std::uint8_t Tensor::item<std::uint8_t>() const;
template std::int8_t Tensor::item<std::int8_t>() const;

// --- method forms of the ops ----------------------------------------------------------

Tensor Tensor::exp() const { return hetero::exp(*this); }
Tensor Tensor::log() const { return hetero::log(*this); }
Tensor Tensor::sqrt() const { return hetero::sqrt(*this); }
Tensor Tensor::abs() const { return hetero::abs(*this); }
Tensor Tensor::relu() const { return hetero::relu(*this); }
Tensor Tensor::sigmoid() const { return hetero::sigmoid(*this); }
Tensor Tensor::tanh() const { return hetero::tanh(*this); }
Tensor Tensor::sum() const { return hetero::sum(*this); }
Tensor Tensor::sum(std::int64_t d, bool k) const { return hetero::sum(*this, d, k); }
Tensor Tensor::mean() const { return hetero::mean(*this); }
Tensor Tensor::mean(std::int64_t d, bool k) const { return hetero::mean(*this, d, k); }
Tensor Tensor::sum(DType t) const { return hetero::sum(*this, t); }
Tensor Tensor::sum(std::int64_t d, bool k, DType t) const { return hetero::sum(*this, d, k, t); }
Tensor Tensor::sum(const std::vector<std::int64_t>& d, bool k) const {
  return hetero::sum(*this, d, k);
}
Tensor Tensor::mean(const std::vector<std::int64_t>& d, bool k) const {
  return hetero::mean(*this, d, k);
}
Tensor Tensor::amax(const std::vector<std::int64_t>& d, bool k) const {
  return hetero::amax(*this, d, k);
}
Tensor Tensor::amin(const std::vector<std::int64_t>& d, bool k) const {
  return hetero::amin(*this, d, k);
}
Tensor Tensor::mean(DType t) const { return hetero::mean(*this, t); }
Tensor Tensor::mean(std::int64_t d, bool k, DType t) const { return hetero::mean(*this, d, k, t); }
Tensor Tensor::max() const { return hetero::max(*this); }
Tensor Tensor::max(std::int64_t d, bool k) const { return hetero::max(*this, d, k); }
Tensor Tensor::min() const { return hetero::min(*this); }
Tensor Tensor::min(std::int64_t d, bool k) const { return hetero::min(*this, d, k); }
Tensor Tensor::norm() const { return hetero::norm(*this); }
Tensor Tensor::argmax() const { return hetero::argmax(*this); }
Tensor Tensor::argmax(std::int64_t d, bool k) const { return hetero::argmax(*this, d, k); }
Tensor Tensor::matmul(const Tensor& o) const { return hetero::matmul(*this, o); }
Tensor Tensor::softmax(std::int64_t d) const { return hetero::softmax(*this, d); }
Tensor Tensor::log_softmax(std::int64_t d) const { return hetero::log_softmax(*this, d); }

}  // namespace hetero
