// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/padding.hpp
/// Padding layers, as torch.nn.ZeroPad2d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d and
/// ReplicationPad1d/2d/3d (and CircularPad1d/2d/3d of later torch versions): pad(x, padding,
/// mode, value) of <hetero/padding.hpp> with fixed amounts, no parameters. One class
/// template, PadNd<Dims, Mode>, explicitly instantiated in the library for the 12 layers.
#include <array>
#include <cstddef>
#include <cstdint>

#include <hetero/nn/module.hpp>
#include <hetero/padding.hpp>

namespace hetero::nn {

/// Pads the last `Dims` dimensions of its input by pad(x, padding, Mode, value). The
/// amounts are (left, right) for Dims 1, (left, right, top, bottom) for 2, and (left, right,
/// top, bottom, front, back) for 3, in elements, as torch's `padding` tuples; negative amounts
/// crop. forward() throws what pad() throws (the rank an input needs: Dims + 1 or Dims + 2
/// dimensions for the reflect and replicate modes, Dims + 2 for circular).
template <int Dims, PadMode Mode>
class HETERO_API PadNd : public Module {
 public:
  static_assert(Dims >= 1 && Dims <= 3, "PadNd pads 1, 2 or 3 dimensions");
  /// The amounts, 2 * Dims of them.
  using Amounts = std::array<std::int64_t, 2 * Dims>;
  /// The same amount on every side of each padded dimension (torch's int form).
  explicit PadNd(std::int64_t padding) requires(Mode != PadMode::constant);
  /// One amount per side.
  explicit PadNd(Amounts padding) requires(Mode != PadMode::constant);
  /// Constant padding with `value` (converted to the input's dtype at forward, as pad()).
  PadNd(std::int64_t padding, double value) requires(Mode == PadMode::constant);
  /// Constant padding, one amount per side.
  PadNd(Amounts padding, double value) requires(Mode == PadMode::constant);
  /// pad(x, padding, Mode, value).
  Tensor forward(const Tensor& x) override;
  /// The amounts, as given (or repeated from the single amount).
  const Amounts& padding() const noexcept { return padding_; }
  /// The constant (0 for the other modes).
  double value() const noexcept { return value_; }

 private:
  Amounts padding_;
  double value_ = 0.0;
};

/// As torch.nn.ConstantPad1d/2d/3d(padding, value).
/// @{
using ConstantPad1d = PadNd<1, PadMode::constant>;
using ConstantPad2d = PadNd<2, PadMode::constant>;
using ConstantPad3d = PadNd<3, PadMode::constant>;
/// @}
/// As torch.nn.ReflectionPad1d/2d/3d(padding).
/// @{
using ReflectionPad1d = PadNd<1, PadMode::reflect>;
using ReflectionPad2d = PadNd<2, PadMode::reflect>;
using ReflectionPad3d = PadNd<3, PadMode::reflect>;
/// @}
/// As torch.nn.ReplicationPad1d/2d/3d(padding).
/// @{
using ReplicationPad1d = PadNd<1, PadMode::replicate>;
using ReplicationPad2d = PadNd<2, PadMode::replicate>;
using ReplicationPad3d = PadNd<3, PadMode::replicate>;
/// @}
/// As torch.nn.CircularPad1d/2d/3d(padding) (torch >= 2.1).
/// @{
using CircularPad1d = PadNd<1, PadMode::circular>;
using CircularPad2d = PadNd<2, PadMode::circular>;
using CircularPad3d = PadNd<3, PadMode::circular>;
/// @}

/// As torch.nn.ZeroPad2d(padding): ConstantPad2d with value 0.
class HETERO_API ZeroPad2d : public ConstantPad2d {
 public:
  /// The same amount on every side.
  explicit ZeroPad2d(std::int64_t padding) : ConstantPad2d(padding, 0.0) {}
  /// (left, right, top, bottom).
  explicit ZeroPad2d(Amounts padding) : ConstantPad2d(padding, 0.0) {}
};

extern template class PadNd<1, PadMode::constant>;
extern template class PadNd<2, PadMode::constant>;
extern template class PadNd<3, PadMode::constant>;
extern template class PadNd<1, PadMode::reflect>;
extern template class PadNd<2, PadMode::reflect>;
extern template class PadNd<3, PadMode::reflect>;
extern template class PadNd<1, PadMode::replicate>;
extern template class PadNd<2, PadMode::replicate>;
extern template class PadNd<3, PadMode::replicate>;
extern template class PadNd<1, PadMode::circular>;
extern template class PadNd<2, PadMode::circular>;
extern template class PadNd<3, PadMode::circular>;

}  // namespace hetero::nn
