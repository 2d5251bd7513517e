// SPDX-License-Identifier: Apache-2.0
#pragma once
// The UCI handwritten digits (examples/data/digits.csv.gz): 1797 rows of 64 pixel
// values 0..16 and a label 0..9, read with zlib and split deterministically.
#include <cstdint>
#include <string>
#include <vector>

namespace digits {

/// Images scaled to [0, 1] (row-major [n, 8, 8]) and their labels.
struct Split {
  std::vector<float> images;
  std::vector<std::int64_t> labels;
  std::int64_t size() const { return static_cast<std::int64_t>(labels.size()); }
};

struct Dataset {
  Split train, test;
};

/// Reads `path` (gzip-compressed CSV). Every fifth sample (index % 5 == 4) goes to the
/// test split, the rest to train, which is then shuffled with a fixed seed.
/// Throws std::runtime_error naming the file and line for a malformed row.
Dataset load(const std::string& path);

}  // namespace digits
