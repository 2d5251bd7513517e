// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file factories.hpp
/// Tensor factories, each taking a device through TensorOptions (default: the scoped
/// default device, initially cpu), as torch::ones etc. All throw OutOfMemoryError when
/// the device cannot hold the tensor, ShapeError for negative sizes, and
/// DeviceUnavailableError / InvalidDeviceError for a device that does not exist.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/generator.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// Uninitialised contiguous tensor (float32 unless options say otherwise).
HETERO_API Tensor empty(const Shape& shape, TensorOptions options = {});
/// All zeros (float32 default).
HETERO_API Tensor zeros(const Shape& shape, TensorOptions options = {});
/// All ones (float32 default).
HETERO_API Tensor ones(const Shape& shape, TensorOptions options = {});
/// All `value` (float32 default). As torch.full: DTypeError when `value` overflows the dtype
/// (NaN, inf or out of range for an integer dtype, a finite value beyond a floating dtype's
/// largest); bool takes value != 0 (NaN is true); a fraction truncates for integers.
HETERO_API Tensor full(const Shape& shape, double value, TensorOptions options = {});
/// Same shape, dtype and device as `like`, all zeros / ones.
/// @{
HETERO_API Tensor zeros_like(const Tensor& like);
HETERO_API Tensor ones_like(const Tensor& like);
/// @}
/// [start, end) in steps of `step` (1-D), as torch.arange with Python floats: float32 unless
/// options name a dtype; ceil((end - start) / step) elements, and for an integer dtype start
/// and step truncated first (arange(-2.25, 7.5, 2, int64) is [-2, 0, 2, 4, 6]). ShapeError
/// for a step of 0 (also after truncation), a non-finite argument, or a step whose sign
/// points away from end; DTypeError for bool.
HETERO_API Tensor arange(double start, double end, double step = 1, TensorOptions options = {});
namespace detail {
/// arange with integral arguments (the template below).
HETERO_API Tensor arange_integral(std::int64_t start, std::int64_t end, std::int64_t step,
                                  TensorOptions options);
}  // namespace detail
/// arange with integral start, end and step (as torch.arange with Python ints): int64 unless
/// options name a dtype; otherwise as the double form.
template <IntegralScalar I>
Tensor arange(I start, I end, I step = 1, TensorOptions options = {}) {
  return detail::arange_integral(start, end, step, options);
}
/// [0, end) in steps of 1, int64 unless options name a dtype.
HETERO_API Tensor arange(std::int64_t end, TensorOptions options = {});
/// `steps` values evenly spaced from `start` to `end` inclusive (float32 unless options name
/// a dtype), as torch.linspace: torch's cpu formula, start + step * i for the first half and
/// end - step * (steps - 1 - i) for the rest, step = (end - start) / (steps - 1), in the
/// dtype's arithmetic (integer dtypes: integral start and end, the step in double,
/// truncated). Computed on the host and copied to the device. ValueError for steps < 0;
/// DTypeError for bool, or a bound the dtype cannot hold (as full()'s value and torch's
/// checked conversion: NaN, inf or outside the range for an integer dtype, -0.5 for uint8
/// included; finite values past a floating dtype's largest).
HETERO_API Tensor linspace(double start, double end, std::int64_t steps,
                           TensorOptions options = {});
/// The n x m identity (m = n when absent; float32 unless options name a dtype), as
/// torch.eye. ValueError for n or m < 0.
HETERO_API Tensor eye(std::int64_t n, std::optional<std::int64_t> m = std::nullopt,
                      TensorOptions options = {});
/// The n x n identity with `options`.
inline Tensor eye(std::int64_t n, TensorOptions options) { return eye(n, std::nullopt, options); }
/// A random permutation of 0 .. n-1 (int64 unless options name a dtype), as torch.randperm:
/// Fisher-Yates on the host with the generator's Philox stream (so a pure function of its
/// seed and offset; not torch's numbers), copied to options' device. ValueError for n < 0;
/// DTypeError for bool (as torch), when n - 1 does not fit an integer dtype, or when n is
/// past 2^digits + 1 for a floating one (float16 2049, bfloat16 257, float32 2^24 + 1:
/// beyond, neighbouring integers round together; torch 2's rule); OutOfMemoryError when
/// the host refuses the n int64 elements of the shuffle (the generator is then unchanged).
HETERO_API Tensor randperm(std::int64_t n, Generator& generator, TensorOptions options = {});
/// Indices drawn from the categorical distributions in the rows of `probs` ([V] or [B, V],
/// floating, non-negative weights that need not sum to 1), as torch.multinomial: int64
/// [num_samples] or [B, num_samples] on probs' device. Without `replacement` each row's
/// indices are distinct (each drawn from the weights left). Inverse-CDF sampling (a
/// cumulative sum in float64 and a count of the entries below a uniform draw) from
/// `generator`, or the device's default generator when null: torch's distribution, not its
/// numbers. Reads the weights' minimum and row sums (waits for the device). ValueError, with
/// torch's messages, for a rank other than 1 or 2, negative, inf or NaN weights, a row
/// summing to 0, num_samples <= 0, or more samples than categories (with a non-zero weight)
/// without replacement;
/// DTypeError for a non-floating probs.
HETERO_API Tensor multinomial(const Tensor& probs, std::int64_t num_samples,
                              bool replacement = false, Generator* generator = nullptr);
/// randperm from the default generator of options' device.
HETERO_API Tensor randperm(std::int64_t n, TensorOptions options = {});
/// Uniform on [0, 1) (float32 default; floating dtypes), from the device's default generator
/// (see manual_seed; the stream is Philox4x32-10, <hetero/generator.hpp>). float16/bfloat16 values
/// are k * 2^-11 / k * 2^-8 (the top bits of a float32 draw), never 1, as torch. DTypeError for
/// integer dtypes.
HETERO_API Tensor rand(const Shape& shape, TensorOptions options = {});
/// Standard normal (float32 default; floating dtypes; float16/bfloat16 rounded from a
/// float32 draw). DTypeError for integer dtypes.
HETERO_API Tensor randn(const Shape& shape, TensorOptions options = {});
/// rand drawing from `generator` instead of the device's default (as torch.rand(...,
/// generator=g)): the same generator state gives the same numbers on every device.
HETERO_API Tensor rand(const Shape& shape, Generator& generator, TensorOptions options = {});
/// randn drawing from `generator`.
HETERO_API Tensor randn(const Shape& shape, Generator& generator, TensorOptions options = {});
/// Seeds the default generators of all devices (default_generator(), <hetero/generator.hpp>;
/// as torch.manual_seed) and rewinds their streams: the same seed gives the same numbers on a
/// device for the same sequence of calls. Thread-safe.
HETERO_API void manual_seed(std::uint64_t seed);

/// 1-D tensor from values, as torch.tensor: integers give int64, floating values float32.
/// @{
HETERO_API Tensor tensor(std::initializer_list<int> values, TensorOptions options = {});
HETERO_API Tensor tensor(std::initializer_list<std::int64_t> values, TensorOptions options = {});
HETERO_API Tensor tensor(std::initializer_list<double> values, TensorOptions options = {});
HETERO_API Tensor tensor(std::initializer_list<float> values, TensorOptions options = {});
/// @}
namespace detail {
/// torch::tensor's dtype for C++ elements of type T: uint8_t -> uint8, int8_t -> int8, other
/// integers -> int64, float and double -> float32 (libtorch's default dtype; checked against
/// Debian's libtorch 1.13), bool -> bool, Half/BFloat16 -> their own.
template <class T>
constexpr DType tensor_dtype_of() {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::uint8_t> ||
                std::is_same_v<T, std::int8_t>)
    return dtype_of<T>;
  else if constexpr (std::is_integral_v<T>)
    return DType::int64;
  else if constexpr (std::is_floating_point_v<T>)
    return DType::float32;
  else
    return dtype_of<T>;
}
}  // namespace detail

/// 1-D tensor of `values` (copied), as torch::tensor(at::ArrayRef<T>) and
/// torch::tensor(std::vector<T>): T is an element type of dtype_of (float, double,
/// std::int32_t, std::int64_t, std::uint8_t, std::int8_t, bool, Half, BFloat16); the dtype is
/// detail::tensor_dtype_of<T> (int32 and int64 values give int64, float and double give
/// float32, as libtorch) unless options name one, converted on the host as from_host.
template <class T>
Tensor tensor(std::span<const T> values, TensorOptions options = {}) {
  return from_host(values.data(), values.size(), dtype_of<T>,
                   {static_cast<std::int64_t>(values.size())},
                   options.dtype(options.dtype_or(detail::tensor_dtype_of<T>())));
}
/// tensor(std::span<const T>) of a vector's elements.
template <class T>
Tensor tensor(const std::vector<T>& values, TensorOptions options = {}) {
  return tensor(std::span<const T>(values.data(), values.size()), options);
}
/// A bool tensor of the vector's values (std::vector<bool> has no contiguous elements;
/// libtorch refuses it, hetero converts it).
HETERO_API Tensor tensor(const std::vector<bool>& values, TensorOptions options = {});

/// 2-D tensor from nested rows; ShapeError when rows differ in length.
/// @{
HETERO_API Tensor tensor(std::initializer_list<std::initializer_list<int>> rows,
                         TensorOptions options = {});
HETERO_API Tensor tensor(std::initializer_list<std::initializer_list<double>> rows,
                         TensorOptions options = {});
/// @}

/// Copies raw host elements of `src_dtype` into a new tensor of `shape`
/// (options.dtype, default src_dtype), converting them on the host by the rule every
/// backend's cast applies (sdk convert_element), as torch.tensor(values, dtype=...): the
/// device needs neither src_dtype nor a cast kernel. ShapeError when count != product of shape;
/// DTypeError when `src_dtype` is bool and a byte is neither 0 nor 1.
HETERO_API Tensor from_host(const void* data, std::size_t count, DType src_dtype,
                            const Shape& shape, TensorOptions options = {});

/// Tensor of `shape` from row-major host values (copied); dtype from T (float ->
/// float32, double -> float64, int32_t -> int32, int64_t -> int64, uint8_t -> uint8,
/// int8_t -> int8, bool -> bool) unless options name one, as torch.tensor. ShapeError when
/// the count does not fill `shape`.
/// @{
template <class T>
Tensor from_vector(std::span<const T> values, const Shape& shape, TensorOptions options = {}) {
  return from_host(values.data(), values.size(), dtype_of<T>, shape, options);
}
template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, TensorOptions options = {}) {
  return from_vector(std::span<const T>(values.data(), values.size()), shape, options);
}
/// @}
/// 1-D from_vector.
template <class T>
Tensor from_vector(const std::vector<T>& values, TensorOptions options = {}) {
  return from_vector(values, Shape{static_cast<std::int64_t>(values.size())}, options);
}
/// from_vector of bools: std::vector<bool> packs bits, so the values are copied to bytes
/// first (a bool tensor, unless options name another dtype).
HETERO_API Tensor from_vector(const std::vector<bool>& values, const Shape& shape,
                              TensorOptions options = {});
/// 1-D from_vector of bools.
HETERO_API Tensor from_vector(const std::vector<bool>& values, TensorOptions options = {});

}  // namespace hetero
