// SPDX-License-Identifier: Apache-2.0
// Work (work.hpp): waiting for a launched collective and completing it on the caller's side.
#include <hetero/distributed/work.hpp>

#include "group.hpp"
#include "work_state.hpp"

namespace hetero::distributed {
namespace detail {

bool WorkState::ready() const noexcept {
  if (finished || !call || call->done() || call->expired()) return true;
  const Group* g = find_group(group_id);  // collectives and Works: one thread per group
  return g == nullptr || !g->broken.empty();
}

std::shared_ptr<WorkState> launch_work(Group& g, const CallSite& site,
                                       std::function<int()> collective, const Tensor& written,
                                       std::function<void()> complete, double timeout_seconds) {
  auto w = std::make_shared<WorkState>();
  w->group_id = g.id;
  w->call.emplace(g, site, std::move(collective), written, timeout_seconds);
  w->complete = std::move(complete);
  return w;
}

}  // namespace detail

Work::Work() = default;
Work::Work(std::shared_ptr<detail::WorkState> state) noexcept : state_(std::move(state)) {}

void Work::wait() {
  if (!state_) return;
  detail::WorkState& w = *state_;
  if (!w.finished) {
    try {
      const DistributedError destroyed(
          "wait: the process group this collective was launched on was destroyed before the "
          "collective was waited for; its result was not written");
      detail::Group* g = detail::find_group(w.group_id);
      if (g == nullptr) throw destroyed;
      const detail::GroupUse use("wait", /*new_call=*/false, g);
      w.call->finish(use.group);
      w.complete();
    } catch (...) {
      w.error = std::current_exception();
    }
    w.finished = true;
    w.call.reset();
    w.complete = nullptr;
  }
  if (w.error) std::rethrow_exception(w.error);
}

bool Work::is_completed() noexcept {
  if (!state_) return true;
  if (!state_->ready()) return false;
  try {
    wait();
  } catch (...) {  // kept in the state: wait() throws it
  }
  return true;
}

}  // namespace hetero::distributed
