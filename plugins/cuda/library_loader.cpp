// SPDX-License-Identifier: Apache-2.0
#include "library_loader.hpp"

namespace hetero::cuda {

boost::dll::shared_library open_first(std::initializer_list<const char*> candidates,
                                      std::string& tried) {
  for (const char* candidate : candidates) {
    std::error_code ec;
    const auto mode = std::string(candidate).find('/') == std::string::npos
                          ? boost::dll::load_mode::search_system_folders
                          : boost::dll::load_mode::default_mode;
    boost::dll::shared_library lib(candidate, mode | boost::dll::load_mode::rtld_lazy, ec);
    if (!ec) return lib;
    tried += std::string(tried.empty() ? "" : "; ") + candidate + ": " + ec.message();
  }
  return {};
}

}  // namespace hetero::cuda
