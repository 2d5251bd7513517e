// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file number.hpp
/// The C++ numbers given to ops beside tensors, as Python numbers (c10::Scalar) are given to
/// torch's: an integral value follows torch's rules for a Python int, a floating one those for
/// a Python float.
#include <concepts>
#include <cstdint>

namespace hetero {

/// An integral C++ type other than bool (int, long, std::size_t, ...): the scalar of the
/// integral overloads (tensor-scalar ops, arange), which follow torch's rules for a Python
/// int where a double follows those for a Python float.
template <class I>
concept IntegralScalar = std::integral<I> && !std::same_as<I, bool>;

/// A number given to an op beside a tensor, as a Python number to torch (or c10::Scalar): an
/// integral value stays integral (an int64 tensor clamped to 2 stays int64), a floating one
/// promotes as `x + 2.5` does. Implicit from any arithmetic type but bool.
class Number {
 public:
  /// An integral number (converted to int64).
  template <IntegralScalar I>
  Number(I v) : integral_(true), i_(static_cast<std::int64_t>(v)) {}  // NOLINT(implicit)
  /// A floating number (converted to double).
  template <std::floating_point F>
  Number(F v) : d_(static_cast<double>(v)) {}  // NOLINT(implicit)
  /// Whether it was given as an integral value.
  bool is_integral() const noexcept { return integral_; }
  /// The integral value (0 for a floating number).
  std::int64_t integral() const noexcept { return i_; }
  /// The value as a double (an integral one converted).
  double floating() const noexcept { return integral_ ? static_cast<double>(i_) : d_; }

 private:
  bool integral_ = false;
  std::int64_t i_ = 0;
  double d_ = 0;
};

}  // namespace hetero
