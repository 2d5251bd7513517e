// SPDX-License-Identifier: Apache-2.0
// The random-fill members of Tensor, uniform_ and normal_ (nn::init::uniform_ and normal_
// call them under NoGradGuard, as torch's init functions call torch's): draws from the
// device's default generator or a given one, written with copy_ (Note [In-place ops]).
#include <string>
#include <utility>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/generator.hpp>
#include <hetero/ops.hpp>
#include <hetero/tensor.hpp>

#include "binary_into_existing.hpp"
#include "op_helpers.hpp"

namespace hetero {

namespace {

// What is checked before anything is drawn, so that a refused call leaves the generator
// where it was: a floating tensor whose elements are distinct locations (ValueError for an
// expand()ed one, as torch), and no leaf that requires grad with grad mode on.
void check_destination(const Tensor& t, const char* who) {
  if (!t.defined()) throw Error(std::string(who) + ": self is an undefined tensor");
  if (!is_floating_point(t.dtype()))
    throw DTypeError(std::string(who) + ": expected a floating tensor, got " +
                     std::string(dtype_name(t.dtype())) + " (torch: \"" + who +
                     "\" not implemented for this dtype)");
  detail::check_no_internal_overlap(who, detail::impl_of(t, who), "");
  if (is_grad_enabled() && t.requires_grad()) detail::check_not_grad_leaf(who, t);
}

// U[0, 1) or N(0, 1) of t's shape, in float32 (float64 for a float64 tensor), on t's device.
Tensor draw(const Tensor& t, bool normal, Generator* generator) {
  const auto o = TensorOptions(t.device())
                     .dtype(t.dtype() == DType::float64 ? DType::float64 : DType::float32);
  if (generator) return normal ? randn(t.shape(), *generator, o) : rand(t.shape(), *generator, o);
  return normal ? randn(t.shape(), o) : rand(t.shape(), o);
}

// Writes `values` (no history) into self: with grad, copy_ records that the old values are
// overwritten (their gradient is zero, as torch's UniformBackward0/NormalBackward0).
Tensor& fill_from(Tensor& self, const Tensor& values) {
  self.copy_(values);
  return self;
}

}  // namespace

Tensor& Tensor::uniform_(double from, double to, Generator* generator) {
  check_destination(*this, "uniform_");
  // torch's checks (aten's check_from_to_in_range and uniform_impl_): before them a reversed
  // range drew from [to, from), an infinite or NaN bound gave NaN, and a range wider than
  // the dtype's largest value (or a bound beyond it) gave inf.
  const double largest = detail::largest_finite(dtype());
  const std::string type(dtype_name(dtype()));
  for (const auto& [name, v] : {std::pair{"from", from}, std::pair{"to", to}})
    if (!(v >= -largest && v <= largest))
      throw ValueError(std::string("uniform_: ") + name + " = " + detail::format_double(v) +
                       " is out of bounds for " + type + " (as torch)");
  if (from > to)
    throw ValueError("uniform_: expects to return a [from, to) range, but found from = " +
                     detail::format_double(from) + " > to = " + detail::format_double(to) +
                     " (as torch)");
  if (to - from > largest)
    throw ValueError("uniform_: expects to - from <= the largest " + type + " (" +
                     detail::format_double(largest) +
                     "), but found to = " + detail::format_double(to) +
                     " and from = " + detail::format_double(from) + " (as torch)");
  return fill_from(*this, draw(*this, false, generator) * (to - from) + from);
}

Tensor& Tensor::normal_(double mean, double std, Generator* generator) {
  check_destination(*this, "normal_");
  if (!(std >= 0.0))  // before: a negative std drew N(mean, std^2) all the same
    throw ValueError("normal_: expects std >= 0.0, but found std " + detail::format_double(std) +
                     " (as torch)");
  return fill_from(*this, draw(*this, true, generator) * std + mean);
}

}  // namespace hetero
