// SPDX-License-Identifier: Apache-2.0
#include "schedule_state.hpp"

#include <cmath>

#include <hetero/error.hpp>

#include "../op_helpers.hpp"

namespace hetero::optim::detail {

ScheduleState::ScheduleState(const nn::NamedTensors& state, const std::string& who,
                             std::initializer_list<const char*> names)
    : state_(state), prefix_(who + ".load_state_dict: ") {
  for (const auto& [name, t] : state) {
    bool known = false;
    for (const char* n : names) known = known || name == n;
    if (!known) throw ValueError(prefix_ + "entry '" + name + "' is not a " + who + " state");
  }
}

const Tensor& ScheduleState::entry(const char* name) const {
  if (!state_.contains(name)) throw ValueError(prefix_ + "no entry '" + name + "'");
  return state_.at(name);
}

double ScheduleState::number(const char* name) const {
  const Tensor& t = entry(name);
  if (t.numel() != 1) throw ValueError(prefix_ + "entry '" + name + "' is not one number");
  return t.to(DType::float64).reshape({}).item<double>();
}

std::int64_t ScheduleState::count(const char* name, std::int64_t least) const {
  const Tensor& t = entry(name);
  if (t.numel() != 1) throw ValueError(prefix_ + "entry '" + name + "' is not one number");
  if (is_floating_point(t.dtype())) {  // (a cast of NaN, inf or 2.5 to int64 would pass)
    const double d = t.to(DType::float64).reshape({}).item<double>();
    if (!(d == std::trunc(d) && std::abs(d) < 9.2e18))
      throw ValueError(prefix_ + "entry '" + name + "' is " + std::to_string(d) +
                       ", not an integer");
  }
  const std::int64_t v = t.to(DType::int64).reshape({}).item<std::int64_t>();
  if (v < least)
    throw ValueError(prefix_ + "entry '" + name + "' is " + std::to_string(v) + ", below " +
                     std::to_string(least));
  return v;
}

std::vector<double> ScheduleState::per_group(const char* name, std::size_t groups,
                                             bool may_be_empty) const {
  const Tensor& t = entry(name);
  const auto n = static_cast<std::size_t>(t.numel());
  if (t.dim() != 1 || (n != groups && !(may_be_empty && n == 0)))
    throw ValueError(
        prefix_ + "entry '" + name + "' has shape " + hetero::detail::shape_str(t.shape()) +
        ", not one value per group (the optimiser has " + std::to_string(groups) + " groups)");
  return t.to(DType::float64).to_vector<double>();
}

}  // namespace hetero::optim::detail
