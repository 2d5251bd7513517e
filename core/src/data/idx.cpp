// SPDX-License-Identifier: Apache-2.0
#include <hetero/data/idx.hpp>

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>
#include <hetero/sdk/kernel_args.hpp>

#include "../op_helpers.hpp"

namespace hetero::data {

namespace {

struct GzClose {
  void operator()(gzFile f) const { gzclose(f); }
};
using Gz = std::unique_ptr<std::remove_pointer_t<gzFile>, GzClose>;

void read_exactly(gzFile f, void* out, std::size_t bytes, const std::string& path) {
  auto* p = static_cast<unsigned char*>(out);
  while (bytes > 0) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(bytes, 1u << 30));
    const int got = gzread(f, p, chunk);
    if (got <= 0) throw FormatError(path + ": truncated or not a valid gzip/IDX file");
    p += got;
    bytes -= static_cast<std::size_t>(got);
  }
}

// `bytes` bytes of elements, read in chunks so that memory grows with what the file holds,
// not with what a damaged header claims: a truncated file raises after allocating at most
// one chunk beyond its contents.
std::vector<unsigned char> read_elements(gzFile f, std::size_t bytes, const std::string& path) {
  constexpr std::size_t kChunk = std::size_t{1} << 24;  // 16 MiB
  std::vector<unsigned char> raw;
  while (raw.size() < bytes) {
    const std::size_t done = raw.size(), step = std::min(kChunk, bytes - done);
    raw.resize(done + step);
    read_exactly(f, raw.data() + done, step, path);
  }
  return raw;
}

// The element type's dtype as read (before widening) and its size in bytes.
struct IdxType {
  DType dtype;
  std::size_t bytes;
};

IdxType idx_type(unsigned char code, const std::string& path) {
  switch (code) {
    case 0x08:
      return {DType::uint8, 1};
    case 0x09:
      return {DType::int8, 1};
    case 0x0B:
      return {DType::int32, 2};  // int16, widened
    case 0x0C:
      return {DType::int32, 4};
    case 0x0D:
      return {DType::float32, 4};
    case 0x0E:
      return {DType::float64, 8};
    default:
      throw FormatError(path + ": unknown IDX element type 0x" + [&] {
        const char* hex = "0123456789abcdef";
        return std::string{hex[code >> 4], hex[code & 15]};
      }());
  }
}

}  // namespace

Tensor read_idx(const std::filesystem::path& path_in, std::int64_t limit) {
  const std::string path = path_in.string();
  Gz f(gzopen(path.c_str(), "rb"));
  if (!f) throw Error(path + ": cannot be opened");
  unsigned char magic[4];
  read_exactly(f.get(), magic, 4, path);
  if (magic[0] != 0 || magic[1] != 0 || magic[3] == 0)
    throw FormatError(path + ": not an IDX file (magic number " + std::to_string(magic[0]) + " " +
                      std::to_string(magic[1]) + " " + std::to_string(magic[2]) + " " +
                      std::to_string(magic[3]) + ")");
  const IdxType type = idx_type(magic[2], path);
  if (magic[3] > kMaxDims)
    throw FormatError(path + ": the IDX header gives " + std::to_string(magic[3]) +
                      " dimensions; at most " + std::to_string(kMaxDims) + " are supported");
  Shape shape;
  std::size_t count = 1;
  for (int d = 0; d < magic[3]; ++d) {
    unsigned char b[4];
    read_exactly(f.get(), b, 4, path);
    std::int64_t size =
        (std::int64_t{b[0]} << 24) | (std::int64_t{b[1]} << 16) | (std::int64_t{b[2]} << 8) | b[3];
    if (d == 0 && limit > 0 && limit < size) size = limit;
    shape.push_back(size);
    // At most 2^62 bytes of elements: every product below stays far from size_t's end.
    constexpr std::size_t kMaxBytes = std::size_t{1} << 62;
    if (size != 0 && count > kMaxBytes / type.bytes / static_cast<std::size_t>(size))
      throw FormatError(path + ": the IDX header's sizes " + detail::shape_str(shape) +
                        " hold more elements than fit in memory; the header is damaged");
    count *= static_cast<std::size_t>(size);
  }
  std::vector<unsigned char> raw = read_elements(f.get(), count * type.bytes, path);
  // Big-endian elements to the host's order.
  const auto element = [&](std::size_t i) {
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < type.bytes; ++k) v = (v << 8) | raw[i * type.bytes + k];
    return v;
  };
  switch (magic[2]) {
    case 0x08:
    case 0x09:
      return from_host(raw.data(), count, type.dtype, shape);
    case 0x0B:
    case 0x0C: {
      std::vector<std::int32_t> v(count);
      for (std::size_t i = 0; i < count; ++i)
        v[i] = type.bytes == 2 ? static_cast<std::int16_t>(element(i))
                               : static_cast<std::int32_t>(element(i));
      return from_vector(v, shape);
    }
    case 0x0D: {
      std::vector<float> v(count);
      for (std::size_t i = 0; i < count; ++i) {
        const auto bits = static_cast<std::uint32_t>(element(i));
        std::memcpy(&v[i], &bits, 4);
      }
      return from_vector(v, shape);
    }
    default: {
      std::vector<double> v(count);
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t bits = element(i);
        std::memcpy(&v[i], &bits, 8);
      }
      return from_vector(v, shape);
    }
  }
}

std::shared_ptr<TensorDataset> fashion_mnist(const std::filesystem::path& dir, bool train,
                                             std::int64_t limit) {
  const std::string prefix = train ? "train" : "t10k";
  const auto find = [&](const std::string& name) {
    for (const std::string& candidate : {name + ".gz", name})
      if (std::filesystem::exists(dir / candidate)) return dir / candidate;
    throw Error((dir / (name + ".gz")).string() +
                ": not found; install Debian's dataset-fashion-mnist package (apt-get install "
                "dataset-fashion-mnist) or give the directory holding the four IDX files");
  };
  const auto image_path = find(prefix + "-images-idx3-ubyte");
  const auto label_path = find(prefix + "-labels-idx1-ubyte");
  const Tensor images = read_idx(image_path, limit), labels = read_idx(label_path, limit);
  if (images.dtype() != DType::uint8 || images.dim() != 3 || images.size(1) != 28 ||
      images.size(2) != 28)
    throw FormatError(image_path.string() + ": expected uint8 28 x 28 images");
  if (labels.dtype() != DType::uint8 || labels.dim() != 1 || labels.size(0) != images.size(0))
    throw FormatError(label_path.string() + ": expected one uint8 label per image of " +
                      image_path.string());
  if (labels.numel() > 0 && max(labels).item<std::int64_t>() > 9)
    throw FormatError(label_path.string() + ": a label is outside 0..9");
  return std::make_shared<TensorDataset>(std::vector<Tensor>{
      (images.to(DType::float32) / 255.0).unsqueeze(1), labels.to(DType::int64)});
}

}  // namespace hetero::data
