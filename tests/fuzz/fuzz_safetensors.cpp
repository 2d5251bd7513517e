// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the safetensors reader: any bytes either validate or throw
// FormatError; anything else (a crash, a sanitizer report, another exception type, an
// allocation beyond -rss_limit_mb) is a finding. Built with clang by
// tests/fuzz/CMakeLists.txt (tools/run_fuzz.sh); seeds: tests/serialize/malformed/.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <hetero/error.hpp>

#include "serialize/safetensors_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto h = hetero::detail::safetensors::parse_file(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-input");
    // A header that validated must describe exactly the data that follows it.
    std::uint64_t covered = 0;
    for (const auto& e : h.entries) covered += e.end - e.begin;
    if (covered > size) __builtin_trap();
  } catch (const hetero::FormatError&) {
  }
  return 0;
}
