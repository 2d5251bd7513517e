// SPDX-License-Identifier: Apache-2.0
#pragma once
// The libtorch twins' Fashion-MNIST reader: IDX files (gzip-compressed or not, through zlib)
// as the bytes after the header, so that the twins depend on neither hetero nor torchvision.
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace twins {

/// The elements of `<dir>/<name>[.gz]` (an IDX file of unsigned bytes) after its header of
/// 4 + 4 * rank bytes, at most `limit` entries of the first dimension (0: all), and the
/// number of entries. std::runtime_error naming the file when it is absent or malformed.
inline std::vector<std::uint8_t> read_idx_bytes(const std::filesystem::path& dir,
                                                const std::string& name, std::int64_t limit,
                                                std::int64_t& count) {
  std::filesystem::path p = dir / (name + ".gz");
  if (!std::filesystem::exists(p)) p = dir / name;
  gzFile f = gzopen(p.c_str(), "rb");
  if (f == nullptr)
    throw std::runtime_error(p.string() + ": not found (apt-get install dataset-fashion-mnist)");
  std::vector<std::uint8_t> bytes;
  std::uint8_t buf[1 << 16];
  int got = 0;
  while ((got = gzread(f, buf, sizeof buf)) > 0) bytes.insert(bytes.end(), buf, buf + got);
  gzclose(f);
  if (bytes.size() < 8 || bytes[0] != 0 || bytes[1] != 0 || bytes[2] != 0x08)
    throw std::runtime_error(p.string() + ": not an IDX file of unsigned bytes");
  const int rank = bytes[3];
  const auto dim = [&](int i) {
    const std::size_t o = 4 + 4 * static_cast<std::size_t>(i);
    return static_cast<std::int64_t>(bytes[o]) << 24 |
           static_cast<std::int64_t>(bytes[o + 1]) << 16 |
           static_cast<std::int64_t>(bytes[o + 2]) << 8 | static_cast<std::int64_t>(bytes[o + 3]);
  };
  std::int64_t per = 1;
  for (int i = 1; i < rank; ++i) per *= dim(i);
  count = dim(0);
  if (limit > 0 && limit < count) count = limit;
  const std::size_t header = 4 + 4 * static_cast<std::size_t>(rank);
  if (bytes.size() < header + static_cast<std::size_t>(count * per))
    throw std::runtime_error(p.string() + ": truncated");
  return {
      bytes.begin() + static_cast<std::ptrdiff_t>(header),
      bytes.begin() + static_cast<std::ptrdiff_t>(header + static_cast<std::size_t>(count * per))};
}

}  // namespace twins
