// SPDX-License-Identifier: Apache-2.0
#include <hetero/optim/lr_scheduler.hpp>

#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>

namespace hetero::optim {

LRScheduler::LRScheduler(Optimizer& optimizer, const char* who) : optimizer_(optimizer), who_(who) {
  for (std::size_t g = 0; g < optimizer.num_param_groups(); ++g) {
    if (!optimizer.get(g, "initial_lr")) optimizer.set(g, "initial_lr", optimizer.lr(g));
    base_lrs_.push_back(*optimizer.get(g, "initial_lr"));
  }
}

void LRScheduler::initial_step() { step(); }

void LRScheduler::step() {
  ++last_epoch_;
  std::vector<double> lrs;
  try {
    lrs = get_lr();
  } catch (...) {
    --last_epoch_;
    throw;
  }
  ++step_count_;
  for (std::size_t g = 0; g < lrs.size(); ++g) optimizer_.assign(g, "lr", lrs[g], false);
  last_lr_.clear();
  for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g)
    last_lr_.push_back(optimizer_.lr(g));
}

nn::NamedTensors LRScheduler::state_dict() const {
  const auto host = TensorOptions(Device::cpu());
  nn::NamedTensors out;
  out.push_back("last_epoch", full({}, static_cast<double>(last_epoch_), host.dtype(DType::int64)));
  out.push_back("step_count", full({}, static_cast<double>(step_count_), host.dtype(DType::int64)));
  out.push_back("base_lrs", from_vector(base_lrs_, host));
  out.push_back("last_lr", from_vector(last_lr_, host));
  return out;
}

void LRScheduler::load_state_dict(const nn::NamedTensors& state) {
  const std::string w = std::string(who_) + ".load_state_dict: ";
  const std::size_t groups = optimizer_.num_param_groups();
  const auto need = [&](const char* name) -> const Tensor& {
    if (!state.contains(name)) throw ValueError(w + "no entry '" + name + "'");
    return state.at(name);
  };
  for (const auto& [name, t] : state)
    if (name != "last_epoch" && name != "step_count" && name != "base_lrs" && name != "last_lr")
      throw ValueError(w + "entry '" + name + "' is not a scheduler state");
  const auto count = [&](const char* name) {
    const Tensor& t = need(name);
    if (t.numel() != 1) throw ValueError(w + "entry '" + name + "' is not one number");
    const std::int64_t v = t.to(DType::int64).reshape({}).item<std::int64_t>();
    if (v < 0) throw ValueError(w + "entry '" + name + "' is negative");
    return v;
  };
  const auto per_group = [&](const char* name) {
    const Tensor& t = need(name);
    if (t.dim() != 1 || static_cast<std::size_t>(t.numel()) != groups)
      throw ValueError(w + "entry '" + name + "' has " + std::to_string(t.numel()) +
                       " values, the optimiser " + std::to_string(groups) + " groups");
    return t.to(DType::float64).to_vector<double>();
  };
  const std::int64_t last_epoch = count("last_epoch"), step_count = count("step_count");
  std::vector<double> base_lrs = per_group("base_lrs"), last_lr = per_group("last_lr");
  last_epoch_ = last_epoch;
  step_count_ = step_count;
  base_lrs_ = std::move(base_lrs);
  last_lr_ = std::move(last_lr);
}

}  // namespace hetero::optim
