#include <hetero/version.hpp>

namespace hetero {

Version version() noexcept {
  return {HETERO_VERSION_MAJOR, HETERO_VERSION_MINOR, HETERO_VERSION_PATCH, HETERO_VERSION_STRING};
}

}  // namespace hetero
