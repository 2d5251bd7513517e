// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file data/idx.hpp
/// The IDX file format of MNIST and Fashion-MNIST (LeCun et al.,
/// http://yann.lecun.com/exdb/mnist/): a magic number (0, 0, type, rank), the sizes as
/// big-endian 32-bit integers, then the elements, row-major and big-endian. Read through
/// zlib, so gzip-compressed files (as Debian's dataset-fashion-mnist installs them) and
/// plain ones both work.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include <hetero/data/dataset.hpp>
#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero::data {

/// The file's elements as a cpu tensor of its shape: type 0x08 uint8, 0x09 int8, 0x0B int16
/// (as int32), 0x0C int32, 0x0D float32, 0x0E float64. FormatError naming the file for a bad
/// magic number, an unknown type or a truncated file; Error when it cannot be opened.
/// `limit` > 0 reads at most that many entries of the first dimension.
HETERO_API Tensor read_idx(const std::filesystem::path& path, std::int64_t limit = 0);

/// Where Debian's dataset-fashion-mnist package installs the four files.
inline constexpr const char* kFashionMnistDebianDir = "/usr/share/datasets/fashion-mnist";

/// Fashion-MNIST (Xiao, Rasul and Vollgraf 2017) from `dir`: `<prefix>-images-idx3-ubyte`
/// and `<prefix>-labels-idx1-ubyte` (.gz or not), prefix "train" (60000) or "t10k" (10000),
/// as a TensorDataset of images float32 [n, 1, 28, 28] in [0, 1] (torchvision's ToTensor)
/// and labels int64 [n]; at most `limit` samples when > 0. Error naming the missing file
/// and the package that provides it; FormatError for files that are not 28 x 28 images and
/// labels 0..9 of one count.
HETERO_API std::shared_ptr<TensorDataset> fashion_mnist(const std::filesystem::path& dir,
                                                        bool train, std::int64_t limit = 0);

}  // namespace hetero::data
