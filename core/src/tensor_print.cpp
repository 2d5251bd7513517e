// SPDX-License-Identifier: Apache-2.0
// operator<< for tensors, following PyTorch 1.13's torch/_tensor_str.py with its default
// print options (precision 4, threshold 1000, edgeitems 3, linewidth 80):
//  - one format for all elements, chosen from the nonzero finite values (of the shown
//    elements when summarised): integer-valued floats print as "1."; others with 4
//    decimals; scientific notation ("1.0000e+00") when the largest magnitude exceeds 1e8
//    or is more than 1000 times the smallest, or (not integer-valued) the smallest is below
//    1e-4; every element padded to the widest;
//  - integers print exactly (int64 beyond 2^53 too), bool as True/False;
//  - rows wrap at 80 columns, nested rows on separate lines indented under the first
//    bracket; more than 1000 elements are summarised to the first and last 3 entries of
//    each dimension with "...";
//  - suffixes in torch's order, wrapped the same way: device (when not cpu:0), size (an
//    empty tensor not of shape [0]), dtype (when not float32; for a non-empty tensor also
//    not int64 or bool), then grad_fn=<name> or requires_grad=True.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <hetero/tensor.hpp>

#include "op_helpers.hpp"

namespace hetero {
namespace {

constexpr std::int64_t kThreshold = 1000;
constexpr std::int64_t kEdgeItems = 3;
constexpr std::size_t kLineWidth = 80;

// The elements in C order: doubles for a floating dtype (every float16, bfloat16 and
// float32 value is exact in a double), int64 otherwise (exact for every integer dtype).
struct HostValues {
  bool floating = false;
  std::vector<double> f;
  std::vector<std::int64_t> i;
  std::size_t size() const noexcept { return floating ? f.size() : i.size(); }
};

HostValues host_values(const Tensor& t) {
  HostValues v;
  v.floating = is_floating_point(t.dtype());
  if (v.floating)
    v.f = t.to_vector<double>();
  else
    v.i = t.to_vector<std::int64_t>();
  return v;
}

std::string format_double(const char* spec, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, x);
  return buf;
}

// torch's _Formatter.
struct Formatter {
  bool floating = false;
  bool boolean = false;
  bool int_mode = true;
  bool sci = false;
  std::size_t width = 1;

  std::string integral(std::int64_t x) const {
    if (boolean) return x != 0 ? "True" : "False";
    return std::to_string(x);
  }
  std::string floating_raw(double x) const {
    // As Python's format(): "nan" whatever its sign bit (printf writes "-nan").
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    if (sci) return format_double("%.4e", x);
    if (int_mode) return format_double("%.0f", x) + '.';
    return format_double("%.4f", x);
  }
  std::string pad(std::string s) const {
    if (s.size() < width) s.insert(0, width - s.size(), ' ');
    return s;
  }
  std::string operator()(const HostValues& v, std::size_t k) const {
    return pad(floating ? floating_raw(v.f[k]) : integral(v.i[k]));
  }
};

// `shown` indexes the values the formatter sees (all, or the summarised ones).
Formatter make_formatter(DType t, const HostValues& v, const std::vector<std::size_t>& shown) {
  Formatter f;
  f.floating = v.floating;
  f.boolean = t == DType::bool_;
  if (!f.floating) {
    for (std::size_t k : shown) f.width = std::max(f.width, f.integral(v.i[k]).size());
    return f;
  }
  std::vector<double> nonzero_finite;
  for (std::size_t k : shown)
    if (std::isfinite(v.f[k]) && v.f[k] != 0) nonzero_finite.push_back(v.f[k]);
  if (nonzero_finite.empty()) return f;
  double lo = INFINITY, hi = 0;
  for (double x : nonzero_finite) {
    if (x != std::ceil(x)) f.int_mode = false;
    lo = std::min(lo, std::fabs(x));
    hi = std::max(hi, std::fabs(x));
  }
  f.sci = hi / lo > 1000.0 || hi > 1.0e8 || (!f.int_mode && lo < 1.0e-4);
  for (double x : nonzero_finite) f.width = std::max(f.width, f.floating_raw(x).size());
  return f;
}

// The positions printed along a dimension of size n, in order: all of them, or when
// summarising a dimension longer than 2 kEdgeItems the first and last kEdgeItems, with
// gap() between the two runs (torch's edge items).
template <class Visit, class Gap>
void for_each_shown(std::size_t n, bool summarise, Visit visit, Gap gap) {
  const auto edge = static_cast<std::size_t>(kEdgeItems);
  if (summarise && n > 2 * edge) {
    for (std::size_t i = 0; i < edge; ++i) visit(i);
    gap();
    for (std::size_t i = n - edge; i < n; ++i) visit(i);
  } else {
    for (std::size_t i = 0; i < n; ++i) visit(i);
  }
}

// Elements per step of dimension `dim` of a C-order tensor of `shape`.
std::size_t block_after(const Shape& shape, std::size_t dim) {
  std::size_t block = 1;
  for (std::size_t d = dim + 1; d < shape.size(); ++d) block *= static_cast<std::size_t>(shape[d]);
  return block;
}

// The flat indices of the elements printed, in print order (torch's get_summarized_data).
void shown_indices(const Shape& shape, std::size_t dim, std::size_t offset, bool summarise,
                   std::vector<std::size_t>& out) {
  const std::size_t block = block_after(shape, dim);
  for_each_shown(
      static_cast<std::size_t>(shape[dim]), summarise,
      [&](std::size_t i) {
        if (dim + 1 == shape.size())
          out.push_back(offset + i);
        else
          shown_indices(shape, dim + 1, offset + i * block, summarise, out);
      },
      [] {});
}

struct Printer {
  const HostValues& values;
  const Shape& shape;
  bool summarise;
  const Formatter& format;

  // torch's _vector_str: elements joined by ", ", as many per line as fit in the line
  // width after `indent` columns.
  std::string vector(std::size_t offset, std::size_t indent) const {
    std::vector<std::string> items;
    for_each_shown(
        static_cast<std::size_t>(shape.back()), summarise,
        [&](std::size_t i) { items.push_back(format(values, offset + i)); },
        [&] { items.emplace_back(" ..."); });
    const std::size_t element = format.width + 2;
    const std::size_t room = kLineWidth > indent ? kLineWidth - indent : 0;
    const std::size_t per_line = std::max<std::size_t>(1, room / element);
    std::string s = "[";
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (k > 0) s += k % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
      s += items[k];
    }
    return s + ']';
  }

  // torch's _tensor_str_with_formatter for dimension `dim` onwards.
  std::string rows(std::size_t dim, std::size_t offset, std::size_t indent) const {
    if (dim + 1 == shape.size()) return vector(offset, indent);
    const std::size_t block = block_after(shape, dim);
    const std::string sep =
        "," + std::string(shape.size() - dim - 1, '\n') + std::string(indent + 1, ' ');
    std::string s = "[";
    bool first = true;
    auto add = [&](const std::string& part) {
      if (!first) s += sep;
      first = false;
      s += part;
    };
    for_each_shown(
        static_cast<std::size_t>(shape[dim]), summarise,
        [&](std::size_t i) { add(rows(dim + 1, offset + i * block, indent + 1)); },
        [&] { add("..."); });
    return s + ']';
  }
};

std::string body(const Tensor& t, std::size_t indent) {
  if (t.numel() == 0) return "[]";
  const HostValues values = host_values(t);
  const bool summarise = t.numel() > kThreshold;
  std::vector<std::size_t> shown;
  if (t.dim() == 0)
    shown.push_back(0);
  else
    shown_indices(t.shape(), 0, 0, summarise, shown);
  const Formatter format = make_formatter(t.dtype(), values, shown);
  if (t.dim() == 0) return format(values, 0);
  return Printer{values, t.shape(), summarise, format}.rows(0, 0, indent);
}

std::vector<std::string> suffixes(const Tensor& t) {
  std::vector<std::string> out;
  if (!t.device().is_cpu() || t.device().index() != 0) {
    std::ostringstream os;
    os << "device='" << t.device() << "'";
    out.push_back(os.str());
  }
  std::ostringstream dtype;
  dtype << "dtype=" << t.dtype();
  if (t.numel() == 0) {
    if (t.dim() != 1) {
      std::string size = "size=(";
      for (std::int64_t d = 0; d < t.dim(); ++d)
        size += (d ? ", " : "") + std::to_string(t.shape()[static_cast<std::size_t>(d)]);
      out.push_back(size + ')');
    }
    if (t.dtype() != DType::float32) out.push_back(dtype.str());
  } else if (t.dtype() != DType::float32 && t.dtype() != DType::int64 &&
             t.dtype() != DType::bool_) {
    out.push_back(dtype.str());
  }
  if (!t.is_leaf())
    out.push_back("grad_fn=<" + t.grad_fn_name() + ">");
  else if (t.requires_grad())
    out.push_back("requires_grad=True");
  return out;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << detail::shape_str(s); }

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ undefined Tensor ]";
  const std::string prefix = "tensor(";
  std::string s = prefix + body(t, prefix.size());
  // torch's _add_suffixes: a suffix that would pass the line width starts a new line.
  const auto newline = s.rfind('\n');
  std::size_t last_line = s.size() - (newline == std::string::npos ? 0 : newline) +
                          (newline == std::string::npos ? 2 : 1);
  for (const std::string& suffix : suffixes(t)) {
    if (last_line + suffix.size() + 2 > kLineWidth) {
      s += ",\n" + std::string(prefix.size(), ' ') + suffix;
      last_line = prefix.size() + suffix.size();
    } else {
      s += ", " + suffix;
      last_line += suffix.size() + 2;
    }
  }
  return os << s << ')';
}

}  // namespace hetero
