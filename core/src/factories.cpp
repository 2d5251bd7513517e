// SPDX-License-Identifier: Apache-2.0
#include <hetero/factories.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/ops.hpp>
#include <hetero/sdk/counter_rng.hpp>
#include <hetero/sdk/dtype_dispatch.hpp>
#include <hetero/sdk/element_conversion.hpp>

#include "backend_calls.hpp"
#include "copy.hpp"
#include "default_generators.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {
namespace {

using detail::fill;

// A factory as an op event of the profiler (category "op"; its result's device, shape and
// dtype, as torch.profiler's aten::zeros): make() runs inside it.
template <class F>
Tensor traced(std::string_view op, F&& make) {
  detail::prof::Scope scope(op, Tensor());
  Tensor t = make();
  scope.describe(t);
  return t;
}

// Draws from `gen`, or from the default generator of the result's device.
Tensor random(RandomDistribution dist, const Shape& shape, const TensorOptions& options,
              Generator* gen) {
  const char* op = dist == RandomDistribution::uniform ? "rand" : "randn";
  const DType t = options.dtype_or(DType::float32);
  if (!is_floating_point(t))
    throw DTypeError(std::string(op) + ": expected a floating dtype, got " +
                     std::string(dtype_name(t)));
  // 16-bit floats are drawn in float32 (backends draw float32/float64 only). randn rounds
  // to nearest; rand keeps the top `digits` bits, k * 2^-digits for k in [0, 2^digits)
  // (digits: the significand's, 11 for float16 and 8 for bfloat16), exact in the 16-bit
  // type and never 1 (as torch's uniform for these types; rounding could give 1).
  if (is_half(t)) {
    Tensor result = detail::new_tensor(shape, t, options, op);
    Tensor draw = random(dist, shape, options.dtype(DType::float32).pinned_memory(false), gen);
    if (dist == RandomDistribution::uniform) {
      const double scale = t == DType::float16 ? 2048.0 : 256.0;
      draw = (draw * scale).to(DType::int32).to(DType::float32) * (1.0 / scale);
    }
    result.copy_(draw);
    return result;
  }
  Tensor out = detail::new_tensor(shape, t, options, op);
  const auto n = static_cast<std::uint64_t>(out.numel());
  if (n == 0) return out;
  // normal draws use two counters per element; uniform ones reserve as many, so that
  // the offsets do not depend on the distribution.
  const GeneratorState at = (gen ? *gen : detail::device_generator(out.device())).reserve(2 * n);
  const std::uint64_t seed = at.seed, offset = at.offset;
  detail::calls::random(detail::storage_of(out), dist, detail::view_of(out), seed, offset);
  return out;
}

template <class T>
Tensor from_list(std::initializer_list<T> values, DType src, const TensorOptions& options) {
  std::vector<T> v(values);
  return from_host(v.data(), v.size(), src, Shape{static_cast<std::int64_t>(v.size())}, options);
}

template <class T>
Tensor from_rows(std::initializer_list<std::initializer_list<T>> rows, DType src,
                 const TensorOptions& options) {
  std::vector<T> v;
  std::size_t cols = rows.size() ? rows.begin()->size() : 0;
  for (const auto& r : rows) {
    if (r.size() != cols)
      throw ShapeError("tensor: rows of different lengths (" + std::to_string(cols) + " and " +
                       std::to_string(r.size()) + ")");
    v.insert(v.end(), r.begin(), r.end());
  }
  return from_host(v.data(), v.size(), src,
                   Shape{static_cast<std::int64_t>(rows.size()), static_cast<std::int64_t>(cols)},
                   options);
}

}  // namespace

Tensor empty(const Shape& shape, TensorOptions options) {
  return traced("empty", [&] {
    return detail::new_tensor(shape, options.dtype_or(DType::float32), options, "empty");
  });
}

namespace detail {
// torch.full's overflow rule (c10::checked_convert of a floating value): NaN, inf and
// finite values outside [lowest, max] of the dtype are refused for integers (127.5 does not
// fit int8); finite values beyond a floating dtype's largest are refused; bool takes
// anything.
void check_value_fits(const char* op, double value, DType t) {
  bool fits = true;
  switch (t) {
    case DType::bool_:
    case DType::float64:
      break;
    case DType::uint8:
      fits = value >= 0.0 && value <= 255.0;
      break;
    case DType::int8:
      fits = value >= -128.0 && value <= 127.0;
      break;
    case DType::int32:
      fits = value >= -2147483648.0 && value <= 2147483647.0;
      break;
    case DType::int64:  // 2^63 is not an int64 (torch's compare rounds the limit up to it)
      fits = value >= -9223372036854775808.0 && value < 9223372036854775808.0;
      break;
    case DType::float16:
    case DType::bfloat16:
    case DType::float32:
      fits = !std::isfinite(value) || std::fabs(value) <= largest_finite(t);
      break;
  }
  if (!fits)
    throw DTypeError(std::string(op) + ": value " + detail::format_double(value) +
                     " cannot be converted to " + std::string(dtype_name(t)) +
                     " without overflow (as torch)");
}

double largest_finite(DType t) {
  switch (t) {
    case DType::float16:
      return 65504.0;
    case DType::bfloat16:  // (2 - 2^-7) * 2^127
      return 3.3895313892515355e38;
    case DType::float32:
      return static_cast<double>(std::numeric_limits<float>::max());
    case DType::float64:
      return std::numeric_limits<double>::max();
    default:
      throw InternalError("largest_finite: " + std::string(dtype_name(t)) + " is not floating");
  }
}
}  // namespace detail

Tensor full(const Shape& shape, double value, TensorOptions options) {
  return traced("full", [&] {
    detail::check_value_fits("full", value, options.dtype_or(DType::float32));
    Tensor t = empty(shape, options);
    detail::fill(t, value);
    return t;
  });
}

Tensor zeros(const Shape& shape, TensorOptions options) {
  return traced("zeros", [&] { return full(shape, 0.0, options); });
}
Tensor ones(const Shape& shape, TensorOptions options) {
  return traced("ones", [&] { return full(shape, 1.0, options); });
}

Tensor zeros_like(const Tensor& like) {
  return zeros(like.shape(), TensorOptions(like.device()).dtype(like.dtype()));
}
Tensor ones_like(const Tensor& like) {
  return ones(like.shape(), TensorOptions(like.device()).dtype(like.dtype()));
}

namespace {
// `count` elements of src_dtype at `data` converted on the host into `target`'s bytes, by the
// rule every backend's cast applies (convert_element), as torch.tensor(values, dtype=...).
void convert_on_host(const void* data, std::size_t count, DType src_dtype, DType target,
                     std::vector<unsigned char>& converted) {
  converted.resize(count * element_size(target));
  dispatch_dtype(src_dtype, [&](auto s_tag) {
    using S = decltype(s_tag);
    dispatch_dtype(target, [&](auto t_tag) {
      using T = decltype(t_tag);
      const S* in = static_cast<const S*>(data);
      T* out = reinterpret_cast<T*>(converted.data());
      for (std::size_t k = 0; k < count; ++k) out[k] = convert_element<T>(in[k]);
    });
  });
}

// Writes value(i) into element i of the new, contiguous 1-D `result`, in chunks of 64 Ki
// elements of host memory (never a host vector of numel elements), each converted on the
// host and written straight into result's storage, for arange and linspace. V is double or
// std::int64_t; an int64 value reaches an integer dtype converted as an integer (uint8 -1
// wraps to 255, as torch).
template <class V, class ValueAt>
void fill_from_host_chunks(Tensor& result, ValueAt value) {
  static_assert(std::is_same_v<V, double> || std::is_same_v<V, std::int64_t>);
  constexpr DType from = std::is_same_v<V, double> ? DType::float64 : DType::int64;
  const detail::TensorImpl& impl = *result.impl();
  const std::size_t size = element_size(result.dtype());
  const std::int64_t n = result.numel();
  constexpr std::int64_t kChunk = std::int64_t{1} << 16;
  std::vector<V> v;
  std::vector<unsigned char> bytes;
  for (std::int64_t lo = 0; lo < n; lo += kChunk) {
    const std::int64_t m = std::min(kChunk, n - lo);
    v.resize(static_cast<std::size_t>(m));
    for (std::int64_t i = 0; i < m; ++i) v[static_cast<std::size_t>(i)] = value(lo + i);
    const void* src = v.data();
    if (result.dtype() != from) {
      convert_on_host(v.data(), v.size(), from, result.dtype(), bytes);
      src = bytes.data();
    }
    detail::write_bytes(src, *impl.storage, static_cast<std::size_t>(impl.offset + lo) * size,
                        static_cast<std::size_t>(m) * size);
  }
}

// arange's rule for a result of dtype t (the overloads pick the default dtype).
Tensor arange_as(double start, double end, double step, DType t, TensorOptions options) {
  if (t == DType::bool_) throw DTypeError("arange: not defined for bool (as torch)");
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step))
    throw ShapeError("arange: unsupported range " + detail::format_double(start) + " -> " +
                     detail::format_double(end) + " step " + detail::format_double(step) +
                     " (bounds and step must be finite)");
  // As torch's arange_out: an integer dtype works with start, end and step truncated to
  // integers (arange(-2.25, 7.5, 2, int64) is -2, 0, 2, 4, 6); the length is
  // ceil((end - start) / step), from the truncated values for int64 and from the double
  // arguments otherwise.
  const bool integer = !is_floating_point(t);
  const double xstart = integer ? std::trunc(start) : start;
  const double xend = integer ? std::trunc(end) : end;
  const double xstep = integer ? std::trunc(step) : step;
  if (xstep == 0)
    throw ShapeError("arange: step must be nonzero (got " + detail::format_double(step) +
                     (integer ? std::string(" for ") + std::string(dtype_name(t)) : "") + ")");
  if ((xstep > 0 && xend < xstart) || (xstep < 0 && xend > xstart))
    throw ShapeError("arange: upper bound and lower bound inconsistent with step sign (" +
                     detail::format_double(start) + " -> " + detail::format_double(end) + " step " +
                     detail::format_double(step) + ")");
  const double span =
      t == DType::int64 ? std::ceil((xend - xstart) / xstep) : std::ceil((end - start) / step);
  if (span > 9.2e18) throw ShapeError("arange: too many elements");
  // The integer dtypes other than int64 check the sign with truncated bounds but count with
  // the double ones: arange(0.75, -0.25, 1, uint8) passes the first and counts -1, which
  // torch refuses (the differential test, seed 24).
  if (span < 0)
    throw ShapeError("arange: invalid size, possible overflow? (" + detail::format_double(start) +
                     " -> " + detail::format_double(end) + " step " + detail::format_double(step) +
                     " counts " + detail::format_double(span) + " elements in " +
                     std::string(dtype_name(t)) + ", as torch)");
  const auto n = span > 0 ? static_cast<std::int64_t>(span) : 0;
  if (integer && (std::fabs(xstart) >= 9.2e18 || std::fabs(xend) >= 9.2e18))
    throw ShapeError("arange: bounds " + detail::format_double(start) + " -> " +
                     detail::format_double(end) + " are outside int64's range");
  // The result first (OutOfMemoryError, typed, for arange(0, 1e12)), then the values.
  Tensor result = empty(Shape{n}, options.dtype(t));
  const auto at = [&](std::int64_t i) { return xstart + static_cast<double>(i) * xstep; };
  if (integer)  // integral values, converted as integers
    fill_from_host_chunks<std::int64_t>(
        result, [&](std::int64_t i) { return static_cast<std::int64_t>(at(i)); });
  else
    fill_from_host_chunks<double>(result, at);
  return result;
}
}  // namespace

Tensor arange(double start, double end, double step, TensorOptions options) {
  return traced("arange", [&] {
    return arange_as(start, end, step, options.dtype_or(DType::float32), options);
  });
}

namespace {
// arange of integral arguments into an integer dtype, in exact integer arithmetic: the
// double form rounds bounds past 2^53 (arange(2^62, 2^62 + 3) counted 0 elements, and
// arange(2^53, 2^53 + 4) gave 2^53 twice). As torch, which subtracts the bounds as integers.
Tensor arange_exact(std::int64_t start, std::int64_t end, std::int64_t step, DType t,
                    TensorOptions options) {
  if (step == 0)
    throw ShapeError("arange: step must be nonzero (got 0 for " + std::string(dtype_name(t)) + ")");
  if ((step > 0 && end < start) || (step < 0 && end > start))
    throw ShapeError("arange: upper bound and lower bound inconsistent with step sign (" +
                     std::to_string(start) + " -> " + std::to_string(end) + " step " +
                     std::to_string(step) + ")");
  // ceil(|end - start| / |step|) in unsigned 64-bit arithmetic, where the distance and the
  // step's magnitude always fit (end - start may not fit int64); the values below wrap
  // modulo 2^64 on the way and land on start + i * step, which lies in [start, end).
  using U = std::uint64_t;
  const U distance = step > 0 ? U(end) - U(start) : U(start) - U(end);
  const U stride = step > 0 ? U(step) : U(0) - U(step);
  const U count = distance / stride + (distance % stride != 0 ? 1 : 0);
  if (count > U(std::numeric_limits<std::int64_t>::max()))
    throw ShapeError("arange: too many elements");
  const auto n = static_cast<std::int64_t>(count);
  Tensor result = empty(Shape{n}, options.dtype(t));  // OutOfMemoryError first, typed
  fill_from_host_chunks<std::int64_t>(
      result, [&](std::int64_t i) { return static_cast<std::int64_t>(U(start) + U(i) * U(step)); });
  return result;
}
}  // namespace

Tensor detail::arange_integral(std::int64_t start, std::int64_t end, std::int64_t step,
                               TensorOptions options) {
  return traced("arange", [&] {
    const DType t = options.dtype_or(DType::int64);
    if (t != DType::bool_ && !is_floating_point(t))
      return arange_exact(start, end, step, t, options);
    return arange_as(static_cast<double>(start), static_cast<double>(end),
                     static_cast<double>(step), t, options);
  });
}

Tensor arange(std::int64_t end, TensorOptions options) {
  return detail::arange_integral(0, end, 1, options);
}

namespace {
// The scalar formula of torch 1.13's cpu linspace kernel, element `idx` of `steps`: from both
// ends towards the middle, computed in T (double for integer dtypes; float for the 16-bit
// ones, rounded once, where torch rounds every step to the 16-bit type: docs/semantics.md
// row 49, as is its int64 vector path, which this does not follow).
template <class T>
T linspace_at(T start, T end, T step, std::int64_t idx, std::int64_t steps) {
  return idx < steps / 2 ? start + step * static_cast<T>(idx)
                         : end - step * static_cast<T>(steps - idx - 1);
}
}  // namespace

Tensor linspace(double start, double end, std::int64_t steps, TensorOptions options) {
  return traced("linspace", [&] {
    const DType t = options.dtype_or(DType::float32);
    if (steps < 0)
      throw ValueError("linspace: number of steps must be non-negative, got " +
                       std::to_string(steps) + " (as torch)");
    if (t == DType::bool_) throw DTypeError("linspace: not implemented for 'Bool' (as torch)");
    const bool integer = !is_floating_point(t);
    // torch converts start and end to the dtype first, checked as full()'s value is: NaN
    // and inf refused for integers, finite values outside the dtype's range for every dtype
    // (linspace(0, 300, 3, uint8) gave 0 150 44, and bounds past int64 converted to int64
    // with undefined behaviour).
    detail::check_value_fits("linspace", start, t);
    detail::check_value_fits("linspace", end, t);
    Tensor result = empty(Shape{steps}, options.dtype(t));
    const double span = static_cast<double>(std::max<std::int64_t>(steps - 1, 1));
    const auto at = [&](std::int64_t idx) -> double {
      if (steps == 1) return start;
      if (integer) {  // start and end as integers, the step in double, truncated back
        const double a = std::trunc(start), b = std::trunc(end);
        return std::trunc(linspace_at(a, b, (b - a) / span, idx, steps));
      }
      if (t == DType::float64) return linspace_at(start, end, (end - start) / span, idx, steps);
      // float32, and the 16-bit dtypes (torch's Half arithmetic is in float)
      const auto a = static_cast<float>(start), b = static_cast<float>(end);
      return linspace_at(a, b, (b - a) / static_cast<float>(span), idx, steps);
    };
    if (integer)
      fill_from_host_chunks<std::int64_t>(
          result, [&](std::int64_t i) { return static_cast<std::int64_t>(at(i)); });
    else
      fill_from_host_chunks<double>(result, at);
    return result;
  });
}

Tensor eye(std::int64_t n, std::optional<std::int64_t> m, TensorOptions options) {
  return traced("eye", [&] {
    const std::int64_t cols = m.value_or(n);
    if (n < 0) throw ValueError("eye: n must be greater or equal to 0, got " + std::to_string(n));
    if (cols < 0)
      throw ValueError("eye: m must be greater or equal to 0, got " + std::to_string(cols));
    const DType t = options.dtype_or(DType::float32);
    const TensorOptions index = options.dtype(DType::int64);
    return eq(arange(n, index).unsqueeze(1), arange(cols, index)).to(t);
  });
}

Tensor randperm(std::int64_t n, Generator& generator, TensorOptions options) {
  return traced("randperm", [&] {
    if (n < 0) throw ValueError("randperm: n must be non-negative, got " + std::to_string(n));
    const DType t = options.dtype_or(DType::int64);
    if (t == DType::bool_) throw DTypeError("randperm: not implemented for bool (as torch)");
    if (!is_floating_point(t) && t != DType::int64 && t != DType::int32 &&
        n - 1 > (t == DType::uint8 ? 255 : 127))
      throw DTypeError("randperm: n " + std::to_string(n) + " does not fit " +
                       std::string(dtype_name(t)) + " (as torch)");
    // A floating dtype holds every integer up to 2^digits, so n may be 2^digits + 1
    // (values 0 .. 2^digits); past that, neighbours round together and the result would
    // repeat values (torch 2's check_supported_max_int_with_precision; 1.13 lacks it for
    // bfloat16).
    if (is_floating_point(t)) {
      const int digits = t == DType::float16    ? 11
                         : t == DType::bfloat16 ? 8
                         : t == DType::float32  ? 24
                                                : 53;
      const std::int64_t most = (std::int64_t{1} << digits) + 1;
      if (n > most)
        throw DTypeError("randperm: n cannot be greater than " + std::to_string(most) + " for " +
                         std::string(dtype_name(t)) + ", whose integers are exact up to 2^" +
                         std::to_string(digits) + " (as torch), got " + std::to_string(n));
    }
    // The host array first, so that a refused one leaves the generator where it was.
    std::vector<std::int64_t> p;
    try {
      p.resize(static_cast<std::size_t>(n));
    } catch (const std::exception&) {  // std::bad_alloc, or std::length_error past max_size()
      throw OutOfMemoryError("randperm: n = " + std::to_string(n) +
                             " needs as many int64 elements (8 bytes each) of host memory, "
                             "which the host refused");
    }
    // Fisher-Yates on the host with draw i = Philox(seed, offset + i) (hetero::rng::mix),
    // so the permutation is a pure function of the generator's state.
    // The swap partners do not depend on the array, so they are drawn kAhead steps early and
    // their elements prefetched: at 2^24 elements (128 MiB) each swap is otherwise a cache
    // miss after a Philox draw, one at a time. The permutation is the same.
    const GeneratorState s = generator.reserve(static_cast<std::uint64_t>(n));
    for (std::int64_t i = 0; i < n; ++i) p[static_cast<std::size_t>(i)] = i;
    constexpr std::int64_t kAhead = 16;
    std::array<std::size_t, kAhead> partner{};
    const auto draw = [&](std::int64_t i) {
      const std::uint64_t bits = rng::mix(s.seed, s.offset + static_cast<std::uint64_t>(i));
      const auto j = static_cast<std::size_t>(bits % static_cast<std::uint64_t>(i + 1));
      __builtin_prefetch(p.data() + j, 1);
      partner[static_cast<std::size_t>(i % kAhead)] = j;
    };
    for (std::int64_t i = n - 1; i > 0 && i >= n - kAhead; --i) draw(i);
    for (std::int64_t i = n - 1; i > 0; --i) {
      const std::size_t j = partner[static_cast<std::size_t>(i % kAhead)];
      if (i - kAhead > 0) draw(i - kAhead);  // the same slot, read above
      std::swap(p[static_cast<std::size_t>(i)], p[j]);
    }
    return from_vector(p, options).to(t);
  });
}

Tensor randperm(std::int64_t n, TensorOptions options) {
  return randperm(n, default_generator(options.device()), options);
}

Tensor rand(const Shape& shape, TensorOptions options) {
  return traced("rand",
                [&] { return random(RandomDistribution::uniform, shape, options, nullptr); });
}
Tensor randn(const Shape& shape, TensorOptions options) {
  return traced("randn",
                [&] { return random(RandomDistribution::normal, shape, options, nullptr); });
}

Tensor rand(const Shape& shape, Generator& generator, TensorOptions options) {
  return traced("rand",
                [&] { return random(RandomDistribution::uniform, shape, options, &generator); });
}
Tensor randn(const Shape& shape, Generator& generator, TensorOptions options) {
  return traced("randn",
                [&] { return random(RandomDistribution::normal, shape, options, &generator); });
}

Tensor tensor(std::initializer_list<int> v, TensorOptions o) {
  return from_list(v, DType::int32, o.dtype(o.dtype_or(DType::int64)));
}
Tensor tensor(std::initializer_list<std::int64_t> v, TensorOptions o) {
  return from_list(v, DType::int64, o);
}
Tensor tensor(std::initializer_list<double> v, TensorOptions o) {
  return from_list(v, DType::float64, o.dtype(o.dtype_or(DType::float32)));
}
Tensor tensor(const std::vector<bool>& values, TensorOptions o) {
  const std::vector<std::uint8_t> bytes(values.begin(), values.end());
  return from_host(bytes.data(), bytes.size(), DType::bool_,
                   {static_cast<std::int64_t>(bytes.size())}, o.dtype(o.dtype_or(DType::bool_)));
}
Tensor tensor(std::initializer_list<float> v, TensorOptions o) {
  return from_list(v, DType::float32, o);
}
Tensor tensor(std::initializer_list<std::initializer_list<int>> rows, TensorOptions o) {
  return from_rows(rows, DType::int32, o.dtype(o.dtype_or(DType::int64)));
}
Tensor tensor(std::initializer_list<std::initializer_list<double>> rows, TensorOptions o) {
  return from_rows(rows, DType::float64, o.dtype(o.dtype_or(DType::float32)));
}

Tensor from_host(const void* data, std::size_t count, DType src_dtype, const Shape& shape,
                 TensorOptions options) {
  const std::int64_t n = detail::checked_numel(shape);
  if (static_cast<std::size_t>(n) != count)
    throw ShapeError("from_vector: " + std::to_string(count) + " values do not fill shape " +
                     detail::shape_str(shape) + " (" + std::to_string(n) + " elements)");
  if (count > 0 && data == nullptr) throw Error("from_vector: null data");
  if (src_dtype == DType::bool_) {
    // Any other byte is refused rather than read as an undefined bool.
    if (const std::size_t k = detail::first_non_bool_byte(data, count); k < count)
      throw DTypeError("from_host: byte " +
                       std::to_string(static_cast<const unsigned char*>(data)[k]) + " at index " +
                       std::to_string(k) +
                       " is not a bool (0 or 1); pass std::uint8_t values for a uint8 tensor");
  }
  const DType target = options.dtype_or(src_dtype);
  Tensor result = detail::new_tensor(shape, target, options, "from_vector");
  if (target == src_dtype) {
    detail::write_bytes(data, *result.impl()->storage, 0, count * element_size(src_dtype));
    return result;
  }
  // Converted on the host: the device needs neither the source dtype nor a cast kernel (a
  // device without float64 takes from_vector of doubles into float32).
  std::vector<unsigned char> converted;
  convert_on_host(data, count, src_dtype, target, converted);
  detail::write_bytes(converted.data(), *result.impl()->storage, 0, converted.size());
  return result;
}

Tensor from_vector(const std::vector<bool>& values, const Shape& shape, TensorOptions options) {
  const std::vector<unsigned char> bytes(values.begin(), values.end());
  return from_host(bytes.data(), bytes.size(), DType::bool_, shape, options);
}
Tensor from_vector(const std::vector<bool>& values, TensorOptions options) {
  return from_vector(values, Shape{static_cast<std::int64_t>(values.size())}, options);
}

}  // namespace hetero
