// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fashion-MNIST (Xiao, Rasul and Vollgraf 2017, https://github.com/zalandoresearch/fashion-mnist):
// 60000 training and 10000 test images of 28 x 28 grey pixels in 10 classes, read from the
// IDX files (gzip-compressed or not) that Debian's dataset-fashion-mnist package installs.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fashion_mnist {

/// Where Debian's dataset-fashion-mnist installs the four files.
inline const char* kDebianDir = "/usr/share/datasets/fashion-mnist";

/// Images scaled to [0, 1], row-major [n, 28, 28], and their labels 0..9.
struct Split {
  std::vector<float> images;
  std::vector<std::int64_t> labels;
  std::int64_t size() const { return static_cast<std::int64_t>(labels.size()); }
};

/// The class names, by label (the data set's README).
const std::vector<std::string>& class_names();

/// Reads `<dir>/<prefix>-images-idx3-ubyte[.gz]` and `<prefix>-labels-idx1-ubyte[.gz]`
/// (prefix "train" or "t10k") with hetero::data::fashion_mnist, at most `limit` samples (0:
/// all). Throws its errors (std::runtime_error's subclasses hetero::Error / FormatError)
/// naming the file: absent (and the package that provides it), not IDX, truncated, a label
/// outside 0..9, or images and labels of different counts.
Split load(const std::filesystem::path& dir, const std::string& prefix, std::int64_t limit = 0);

}  // namespace fashion_mnist
