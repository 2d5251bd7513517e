// SPDX-License-Identifier: Apache-2.0
// operator<< for tensors, following PyTorch's layout (torch/_tensor_str.py): integer-
// valued floats print as "1.", others with 4 decimals or in scientific notation when
// the magnitudes span more than 1e3 or exceed 1e8; elements padded to one width; rows
// on separate lines indented under the first bracket; more than 1000 elements are
// summarised with the first and last 3 entries of each dimension.
#include <cmath>
#include <cstdio>
#include <sstream>

#include <hetero/tensor.hpp>

#include "op_helpers.hpp"

namespace hetero {
namespace {

constexpr std::int64_t kThreshold = 1000;
constexpr std::int64_t kEdgeItems = 3;

struct Formatter {
  bool floating = false;
  bool boolean = false;
  bool integral_floats = true;
  bool sci = false;
  std::size_t width = 1;

  std::string raw(double v) const {
    char buf[64];
    if (boolean) return v != 0 ? "True" : "False";
    if (!floating) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
      return buf;
    }
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (sci)
      std::snprintf(buf, sizeof buf, "%.4e", v);
    else if (integral_floats)
      std::snprintf(buf, sizeof buf, "%.0f.", v);
    else
      std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
  }
  std::string operator()(double v) const {
    std::string s = raw(v);
    if (s.size() < width) s.insert(0, width - s.size(), ' ');
    return s;
  }
};

Formatter make_formatter(DType t, const std::vector<double>& values) {
  Formatter f;
  f.floating = is_floating_point(t);
  f.boolean = t == DType::bool_;
  if (f.floating) {
    double lo = INFINITY, hi = 0;
    for (double v : values) {
      if (!std::isfinite(v)) continue;
      if (v != std::floor(v)) f.integral_floats = false;
      const double a = std::fabs(v);
      if (a > 0) lo = std::min(lo, a);
      hi = std::max(hi, a);
    }
    if (f.integral_floats)
      f.sci = hi > 1e8;
    else
      f.sci = hi > 1e8 || (lo < 1e-4) || (lo > 0 && hi / lo > 1e3);
  }
  for (double v : values) f.width = std::max(f.width, f.raw(v).size());
  return f;
}

void print_rec(std::ostream& os, const std::vector<double>& v, const Shape& shape, std::size_t dim,
               std::int64_t offset, bool summarise, const Formatter& f, std::size_t indent) {
  const std::int64_t n = shape[dim];
  std::int64_t block = 1;
  for (std::size_t d = dim + 1; d < shape.size(); ++d) block *= shape[d];
  const bool last = dim + 1 == shape.size();
  const std::string sep =
      last ? ", "
           : "," + std::string(shape.size() - dim - 1, '\n') + std::string(indent + dim + 1, ' ');
  os << '[';
  bool first = true;
  auto emit = [&](std::int64_t i) {
    if (!first) os << sep;
    first = false;
    if (last)
      os << f(v[static_cast<std::size_t>(offset + i)]);
    else
      print_rec(os, v, shape, dim + 1, offset + i * block, summarise, f, indent);
  };
  if (summarise && n > 2 * kEdgeItems) {
    for (std::int64_t i = 0; i < kEdgeItems; ++i) emit(i);
    os << sep << (last ? " ..." : "...");
    for (std::int64_t i = n - kEdgeItems; i < n; ++i) emit(i);
  } else {
    for (std::int64_t i = 0; i < n; ++i) emit(i);
  }
  os << ']';
}

// Values to print: all of them, or (summarised) only what print_rec reads: the full
// vector is still read once from the device, which is what a host read means here.
std::vector<double> host_values(const Tensor& t) {
  if (t.dtype() == DType::int64) {
    const auto iv = t.to_vector<std::int64_t>();
    return std::vector<double>(iv.begin(), iv.end());
  }
  return t.to_vector<double>();
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << detail::shape_str(s); }

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ undefined Tensor ]";
  const auto values = host_values(t);
  const bool summarise = t.numel() > kThreshold;
  std::vector<double> shown;
  if (summarise) {
    // The formatter's width comes from the shown elements only, as PyTorch.
    shown.reserve(64);
    for (std::size_t i = 0; i < values.size(); ++i)
      if (i < 64 || i + 64 >= values.size()) shown.push_back(values[i]);
  }
  const Formatter f = make_formatter(t.dtype(), summarise ? shown : values);
  std::ostringstream body;
  const std::string prefix = "tensor(";
  if (t.dim() == 0)
    body << f.raw(values.at(0));
  else if (t.numel() == 0)
    body << "[]";
  else
    print_rec(body, values, t.shape(), 0, 0, summarise, f, prefix.size());
  os << prefix << body.str();
  if (t.numel() == 0 && t.dim() > 1) {
    os << ", size=(";
    for (std::int64_t d = 0; d < t.dim(); ++d)
      os << (d ? ", " : "") << t.shape()[static_cast<std::size_t>(d)];
    os << ')';
  }
  if (!t.device().is_cpu() || t.device().index() != 0) os << ", device='" << t.device() << "'";
  if (t.dtype() != DType::float32 && t.dtype() != DType::int64 && t.dtype() != DType::bool_)
    os << ", dtype=" << t.dtype();
  return os << ')';
}

}  // namespace hetero
