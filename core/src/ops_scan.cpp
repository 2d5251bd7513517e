// SPDX-License-Identifier: Apache-2.0
// cumsum (<hetero/manipulation.hpp>): the inclusive scan of Hillis and Steele (1986), log2(n)
// rounds of y[i] += y[i - shift] with shift doubling, each a narrow, an add and a cat, so it
// runs on every backend and records its gradient through those ops.
#include <hetero/manipulation.hpp>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

Tensor cumsum(const Tensor& a, std::int64_t dim, std::optional<DType> dtype) {
  const detail::prof::Scope op_scope("cumsum", a);
  detail::impl_of(a, "cumsum");
  // torch converts a 0-d input to `dtype` as a scalar, with its overflow check
  // ("value cannot be converted to type float without overflow"); a 1-element 1-d input is
  // converted as a tensor (1.35e308 becomes inf), as here.
  if (dtype && a.dim() == 0 && *dtype != a.dtype())
    detail::check_value_fits("cumsum", a.item<double>(), *dtype);
  const Tensor x = dtype ? a.to(*dtype) : a;
  const DType result = is_floating_point(x.dtype()) ? x.dtype() : DType::int64;
  if (x.dim() == 0) {
    detail::wrap_dim(dim, 1, "cumsum");
    return x.to(result).clone();
  }
  const std::int64_t d = detail::wrap_dim(dim, x.dim(), "cumsum");
  // Floating sums in float64 where the device has it (torch's cpu kernel accumulates float32
  // and float64 in double, the 16-bit ones in float), integers in int64 (exact).
  const DType compute = !is_floating_point(result)               ? DType::int64
                        : detail::runs_float64(x, BinaryOp::add) ? DType::float64
                        : result == DType::float64               ? DType::float64
                                                                 : DType::float32;
  Tensor y = x.to(compute);
  const std::int64_t n = x.shape()[static_cast<std::size_t>(d)];
  for (std::int64_t shift = 1; shift < n; shift *= 2)
    y = cat({y.narrow(d, 0, shift), y.narrow(d, shift, n - shift) + y.narrow(d, 0, n - shift)}, d);
  return y.dtype() == result && y.is_same(x) ? y.clone() : y.to(result);
}

}  // namespace hetero
