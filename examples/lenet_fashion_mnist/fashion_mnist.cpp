// SPDX-License-Identifier: Apache-2.0
#include "fashion_mnist.hpp"

#include <zlib.h>

#include <memory>
#include <stdexcept>

namespace fashion_mnist {
namespace {

struct GzClose {
  void operator()(gzFile f) const { gzclose(f); }
};
using Gz = std::unique_ptr<std::remove_pointer_t<gzFile>, GzClose>;

// The file `<dir>/<name>.gz` or `<dir>/<name>`, opened through zlib (which reads both).
std::pair<Gz, std::string> open(const std::filesystem::path& dir, const std::string& name) {
  for (const std::string& candidate : std::vector<std::string>{name + ".gz", name}) {
    const std::string path = (dir / candidate).string();
    if (std::filesystem::exists(path)) {
      Gz f(gzopen(path.c_str(), "rb"));
      if (!f) throw std::runtime_error(path + ": cannot be opened");
      return {std::move(f), path};
    }
  }
  throw std::runtime_error((dir / (name + ".gz")).string() +
                           ": not found; install Debian's dataset-fashion-mnist package "
                           "(apt-get install dataset-fashion-mnist) or pass --data DIR holding "
                           "the four IDX files");
}

void read_exactly(gzFile f, void* out, std::size_t bytes, const std::string& path) {
  auto* p = static_cast<unsigned char*>(out);
  while (bytes > 0) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(bytes, 1u << 30));
    const int got = gzread(f, p, chunk);
    if (got <= 0) throw std::runtime_error(path + ": truncated or not a valid gzip/IDX file");
    p += got;
    bytes -= static_cast<std::size_t>(got);
  }
}

std::uint32_t big_endian(const unsigned char* b) {
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) |
         b[3];
}

// An IDX header: magic (0, 0, 8 = unsigned byte, `dims`) and the sizes.
std::vector<std::uint32_t> header(gzFile f, int dims, const std::string& path) {
  unsigned char b[4];
  read_exactly(f, b, 4, path);
  if (b[0] != 0 || b[1] != 0 || b[2] != 8 || b[3] != dims)
    throw std::runtime_error(path + ": not an IDX file of unsigned bytes with " +
                             std::to_string(dims) + " dimensions");
  std::vector<std::uint32_t> sizes;
  for (int i = 0; i < dims; ++i) {
    read_exactly(f, b, 4, path);
    sizes.push_back(big_endian(b));
  }
  return sizes;
}

}  // namespace

const std::vector<std::string>& class_names() {
  static const std::vector<std::string> names{"t-shirt", "trouser",   "pullover", "dress",
                                              "coat",    "sandal",    "shirt",    "sneaker",
                                              "bag",     "ankle boot"};
  return names;
}

Split load(const std::filesystem::path& dir, const std::string& prefix, std::int64_t limit) {
  auto [images, image_path] = open(dir, prefix + "-images-idx3-ubyte");
  auto [labels, label_path] = open(dir, prefix + "-labels-idx1-ubyte");
  const auto is = header(images.get(), 3, image_path);
  const auto ls = header(labels.get(), 1, label_path);
  if (is[1] != 28 || is[2] != 28)
    throw std::runtime_error(image_path + ": expected 28 x 28 images, got " +
                             std::to_string(is[1]) + " x " + std::to_string(is[2]));
  if (is[0] != ls[0])
    throw std::runtime_error(image_path + " holds " + std::to_string(is[0]) + " images but " +
                             label_path + " " + std::to_string(ls[0]) + " labels");
  std::int64_t n = is[0];
  if (limit > 0 && limit < n) n = limit;
  const auto count = static_cast<std::size_t>(n);
  std::vector<unsigned char> pixels(count * 28 * 28), classes(count);
  read_exactly(images.get(), pixels.data(), pixels.size(), image_path);
  read_exactly(labels.get(), classes.data(), classes.size(), label_path);
  Split s;
  s.images.reserve(pixels.size());
  for (unsigned char p : pixels) s.images.push_back(static_cast<float>(p) / 255.0f);
  for (std::size_t i = 0; i < count; ++i) {
    if (classes[i] > 9)
      throw std::runtime_error(label_path + ": label " + std::to_string(classes[i]) +
                               " of sample " + std::to_string(i) + " is outside 0..9");
    s.labels.push_back(classes[i]);
  }
  return s;
}

}  // namespace fashion_mnist
