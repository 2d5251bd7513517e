// SPDX-License-Identifier: Apache-2.0
#include "digits_dataset.hpp"

#include <zlib.h>

#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace digits {
namespace {

void parse_row(const std::string& line, int line_no, const std::string& path, Split& out) {
  std::istringstream in(line);
  std::string cell;
  std::vector<float> values;
  while (std::getline(in, cell, ',')) values.push_back(std::stof(cell));
  if (values.size() != 65 || values.back() < 0 || values.back() > 9)
    throw std::runtime_error(path + ":" + std::to_string(line_no) +
                             ": expected 64 pixels and a label 0..9");
  for (int i = 0; i < 64; ++i) out.images.push_back(values[static_cast<std::size_t>(i)] / 16.0f);
  out.labels.push_back(static_cast<std::int64_t>(values[64]));
}

// Fisher-Yates with mt19937_64 (fully specified, so the order is the same everywhere).
void shuffle(Split& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (std::int64_t i = s.size() - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(i + 1));
    std::swap(s.labels[static_cast<std::size_t>(i)], s.labels[static_cast<std::size_t>(j)]);
    for (int k = 0; k < 64; ++k)
      std::swap(s.images[static_cast<std::size_t>(i * 64 + k)],
                s.images[static_cast<std::size_t>(j * 64 + k)]);
  }
}

}  // namespace

Dataset load(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw std::runtime_error("cannot open " + path);
  Dataset d;
  std::string line;
  char buf[4096];
  int line_no = 0, index = 0;
  while (gzgets(file.get(), buf, sizeof buf) != nullptr) {
    line = buf;
    ++line_no;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.empty()) continue;
    parse_row(line, line_no, path, index % 5 == 4 ? d.test : d.train);
    ++index;
  }
  if (index == 0) throw std::runtime_error(path + ": no samples");
  shuffle(d.train, 2024);
  return d;
}

}  // namespace digits
