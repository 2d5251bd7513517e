// SPDX-License-Identifier: Apache-2.0
#include "onednn_runtime.hpp"

#if HETERO_CPU_ONEDNN
#include <omp.h>

#include <cstdlib>
#include <string_view>

namespace hetero::cpu::kernels::onednn {

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

bool enabled() noexcept {
  static const bool on = [] {
    const char* v = std::getenv("HETERO_CPU_ONEDNN");
    return v == nullptr || std::string_view(v) != "0";
  }();
  return on;
}

ThreadScope::ThreadScope(int threads) : caller_threads_(omp_get_max_threads()) {
  omp_set_num_threads(threads > 0 ? threads : 1);
}

ThreadScope::~ThreadScope() { omp_set_num_threads(caller_threads_); }

}  // namespace hetero::cpu::kernels::onednn
#endif
