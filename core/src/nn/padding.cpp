// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/padding.hpp>

#include <vector>

namespace hetero::nn {

template <int Dims, PadMode Mode>
PadNd<Dims, Mode>::PadNd(std::int64_t padding) requires(Mode != PadMode::constant) {
  padding_.fill(padding);
}

template <int Dims, PadMode Mode>
PadNd<Dims, Mode>::PadNd(Amounts padding) requires(Mode != PadMode::constant) : padding_(padding) {}

template <int Dims, PadMode Mode>
PadNd<Dims, Mode>::PadNd(std::int64_t padding, double value) requires(Mode == PadMode::constant)
    : value_(value) {
  padding_.fill(padding);
}

template <int Dims, PadMode Mode>
PadNd<Dims, Mode>::PadNd(Amounts padding, double value) requires(Mode == PadMode::constant)
    : padding_(padding), value_(value) {}

template <int Dims, PadMode Mode>
Tensor PadNd<Dims, Mode>::forward(const Tensor& x) {
  return pad(x, std::vector<std::int64_t>(padding_.begin(), padding_.end()), Mode, value_);
}

template class PadNd<1, PadMode::constant>;
template class PadNd<2, PadMode::constant>;
template class PadNd<3, PadMode::constant>;
template class PadNd<1, PadMode::reflect>;
template class PadNd<2, PadMode::reflect>;
template class PadNd<3, PadMode::reflect>;
template class PadNd<1, PadMode::replicate>;
template class PadNd<2, PadMode::replicate>;
template class PadNd<3, PadMode::replicate>;
template class PadNd<1, PadMode::circular>;
template class PadNd<2, PadMode::circular>;
template class PadNd<3, PadMode::circular>;

}  // namespace hetero::nn
