#include <hetero/factories.hpp>

#include <cmath>
#include <mutex>
#include <unordered_map>

#include <hetero/error.hpp>

#include "backend_calls.hpp"
#include "copy.hpp"
#include "op_helpers.hpp"

namespace hetero {
namespace {

using detail::fill;

// Per-device counter-based generator state (Philox-style: the backend maps
// (seed, offset + i) to element i, so a draw only advances the offset).
struct GeneratorState {
  std::mutex mutex;
  std::uint64_t seed = 67280421310721ULL;  // PyTorch's default seed
  std::unordered_map<Device, std::uint64_t> offsets;
};
GeneratorState& generators() {
  static GeneratorState g;
  return g;
}

Tensor random(RandomDistribution dist, const Shape& shape, const TensorOptions& options) {
  const char* op = dist == RandomDistribution::uniform ? "rand" : "randn";
  const DType t = options.dtype_or(DType::float32);
  if (!is_floating_point(t))
    throw DTypeError(std::string(op) + ": expected a floating dtype, got " +
                     std::string(dtype_name(t)));
  // 16-bit floats: drawn in float32 and rounded, so a seed gives the same values in
  // every floating dtype up to rounding (backends draw float32/float64 only).
  if (is_half(t)) {
    Tensor result = detail::new_tensor(shape, t, options, op);
    result.copy_(random(dist, shape, options.dtype(DType::float32).pinned_memory(false)));
    return result;
  }
  Tensor out = detail::new_tensor(shape, t, options, op);
  const auto n = static_cast<std::uint64_t>(out.numel());
  if (n == 0) return out;
  std::uint64_t seed = 0, offset = 0;
  {
    auto& g = generators();
    std::lock_guard lock(g.mutex);
    seed = g.seed;
    auto& off = g.offsets[out.device()];
    offset = off;
    off += 2 * n;  // normal draws use two counters per element
  }
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
  return detail::new_tensor(shape, options.dtype_or(DType::float32), options, "empty");
}

Tensor full(const Shape& shape, double value, TensorOptions options) {
  Tensor t = empty(shape, options);
  fill(t, value);
  return t;
}

Tensor zeros(const Shape& shape, TensorOptions options) { return full(shape, 0.0, options); }
Tensor ones(const Shape& shape, TensorOptions options) { return full(shape, 1.0, options); }

Tensor zeros_like(const Tensor& like) {
  return zeros(like.shape(), TensorOptions(like.device()).dtype(like.dtype()));
}
Tensor ones_like(const Tensor& like) {
  return ones(like.shape(), TensorOptions(like.device()).dtype(like.dtype()));
}

Tensor arange(double start, double end, double step, TensorOptions options) {
  if (step == 0 || !std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step))
    throw ShapeError("arange: step must be non-zero and bounds finite");
  const double span = (end - start) / step;
  const auto n = span > 0 ? static_cast<std::int64_t>(std::ceil(span)) : 0;
  const bool integral =
      start == std::floor(start) && end == std::floor(end) && step == std::floor(step);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = start + static_cast<double>(i) * step;
  const DType t = options.dtype_or(integral ? DType::int64 : DType::float32);
  return from_host(v.data(), v.size(), DType::float64, Shape{n}, options.dtype(t));
}

Tensor arange(std::int64_t end, TensorOptions options) {
  return arange(0.0, static_cast<double>(end), 1.0, options);
}

Tensor rand(const Shape& shape, TensorOptions options) {
  return random(RandomDistribution::uniform, shape, options);
}
Tensor randn(const Shape& shape, TensorOptions options) {
  return random(RandomDistribution::normal, shape, options);
}

void manual_seed(std::uint64_t seed) {
  auto& g = generators();
  std::lock_guard lock(g.mutex);
  g.seed = seed;
  g.offsets.clear();
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
  const DType target = options.dtype_or(src_dtype);
  Tensor result = detail::new_tensor(shape, target, options, "from_vector");
  // The values arrive in their own dtype, then are converted into the result (an ordinary
  // tensor on the result's device, also for a pinned result).
  Tensor t = target == src_dtype ? result : detail::new_tensor_like(shape, src_dtype, result);
  if (src_dtype == DType::bool_) {
    // Bytes other than 0 and 1 (from_vector<std::uint8_t>) are true, stored as 1.
    std::vector<std::uint8_t> canonical(count);
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    for (std::size_t k = 0; k < count; ++k) canonical[k] = bytes[k] != 0;
    detail::write_bytes(canonical.data(), *t.impl()->storage, 0, count);
  } else {
    detail::write_bytes(data, *t.impl()->storage, 0, count * element_size(src_dtype));
  }
  if (!t.is_same(result)) result.copy_(t);
  return result;
}

}  // namespace hetero
