// SPDX-License-Identifier: Apache-2.0
// save / load_file / load: safetensors files (Note in safetensors_header.hpp) from and to
// tensors on any device.
#include <hetero/serialize.hpp>

#include <bit>
#include <cstring>
#include <fstream>
#include <set>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../copy.hpp"
#include "../op_helpers.hpp"
#include "atomic_file.hpp"
#include "safetensors_header.hpp"

namespace hetero {
namespace st = detail::safetensors;

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host would need byte swaps");

namespace {

// An open file and its validated header.
struct OpenedFile {
  std::ifstream in;
  st::Header header;
  std::uint64_t data_start = 0;  // bytes from the start of the file
};

OpenedFile open_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  OpenedFile f;
  f.in.open(path, std::ios::binary);
  if (!f.in) throw Error("cannot open '" + name + "': " + std::strerror(errno));
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw Error("cannot read the size of '" + name + "': " + ec.message());
  if (size < 8)
    throw FormatError("safetensors file '" + name + "': " + std::to_string(size) +
                      " bytes, too short for the 8-byte header length (truncated?)");
  unsigned char len_bytes[8];
  f.in.read(reinterpret_cast<char*>(len_bytes), 8);
  const std::uint64_t n = st::parse_header_length(len_bytes, size, name);
  std::string json(static_cast<std::size_t>(n), '\0');
  if (!f.in.read(json.data(), static_cast<std::streamsize>(n)))
    throw Error("cannot read '" + name + "': read failed");
  f.data_start = 8 + n;
  f.header = st::parse_header(json, size - f.data_start, name);
  return f;
}

// The bytes of `t` (contiguous, C order) read from its device.
std::vector<unsigned char> host_bytes(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto& impl = *c.impl();
  const std::size_t es = element_size(impl.dtype);
  std::vector<unsigned char> out(static_cast<std::size_t>(impl.numel()) * es);
  detail::read_bytes(*impl.storage, static_cast<std::size_t>(impl.offset) * es, out.data(),
                     out.size());
  return out;
}

nn::NamedTensors state_dict(const nn::Module& module) {
  nn::NamedTensors all;
  for (const auto& [n, t] : module.named_parameters()) all.push_back(n, t);
  for (const auto& [n, t] : module.named_buffers()) all.push_back(n, t);
  return all;
}

}  // namespace

void save(const nn::NamedTensors& tensors, const std::filesystem::path& path,
          const Metadata& metadata) {
  std::vector<st::Entry> entries;
  std::set<std::string> names;
  std::uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (name.empty()) throw Error("save('" + path.string() + "'): a tensor has an empty name");
    if (!names.insert(name).second)
      throw Error("save('" + path.string() + "'): name '" + name + "' appears twice");
    if (name == "__metadata__")  // the file would be unreadable (issue #25)
      throw Error("save('" + path.string() +
                  "'): the name '__metadata__' is reserved by safetensors for the metadata; "
                  "rename the tensor");
    detail::impl_of(t, "save");
    st::Entry e;
    e.name = name;
    e.dtype = t.dtype();
    e.shape = t.shape();
    e.begin = offset;
    e.end = offset + static_cast<std::uint64_t>(t.numel()) * element_size(t.dtype());
    offset = e.end;
    entries.push_back(std::move(e));
  }
  const std::string header = st::make_header(entries, metadata);
  detail::AtomicFile file(path);
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(header.size() >> (8 * i));
  file.write(len, 8);
  file.write(header.data(), header.size());
  for (const auto& [name, t] : tensors) {
    const auto bytes = host_bytes(t);
    file.write(bytes.data(), bytes.size());
  }
  file.commit();
}

void save(const nn::Module& module, const std::filesystem::path& path, const Metadata& metadata) {
  save(state_dict(module), path, metadata);
}

nn::NamedTensors load_file(const std::filesystem::path& path, const Device& device) {
  OpenedFile f = open_file(path);
  nn::NamedTensors out;
  std::vector<char> staging;
  for (const auto& e : f.header.entries) {
    // Entries tile the data in offset order, so the file is read front to back.
    staging.resize(static_cast<std::size_t>(e.end - e.begin));
    f.in.seekg(static_cast<std::streamoff>(f.data_start + e.begin));
    if (!f.in.read(staging.data(), static_cast<std::streamsize>(staging.size())))
      throw FormatError("safetensors file '" + path.string() + "': tensor '" + e.name +
                        "': data cannot be read (file changed or truncated while reading)");
    if (e.dtype == DType::bool_)
      if (const std::size_t k = detail::first_non_bool_byte(staging.data(), staging.size());
          k < staging.size())
        throw FormatError("safetensors file '" + path.string() + "': tensor '" + e.name +
                          "': BOOL element " + std::to_string(k) + " is byte " +
                          std::to_string(static_cast<unsigned char>(staging[k])) + ", not 0 or 1");
    Tensor t = detail::new_tensor(e.shape, e.dtype, Device::cpu());
    detail::write_bytes(staging.data(), *t.impl()->storage, 0, staging.size());
    out.push_back(e.name, t.to(device));
  }
  return out;
}

Metadata load_metadata(const std::filesystem::path& path) {
  return open_file(path).header.metadata;
}

void load(nn::Module& module, const std::filesystem::path& path,
          const std::optional<Device>& map_location) {
  NoGradGuard no_grad;
  const nn::NamedTensors target = state_dict(module);
  // Validate the whole file and the match with the module before changing anything.
  const nn::NamedTensors loaded = load_file(path, map_location.value_or(Device::cpu()));
  std::string missing, unexpected, mismatched;
  const auto append = [](std::string& list, const std::string& item) {
    list += (list.empty() ? "" : ", ") + item;
  };
  for (const auto& [name, t] : target) {
    if (!loaded.contains(name))
      append(missing, name);
    else if (loaded.at(name).shape() != t.shape())
      append(mismatched, name + " (file " + detail::shape_str(loaded.at(name).shape()) +
                             ", module " + detail::shape_str(t.shape()) + ")");
  }
  for (const auto& [name, t] : loaded)
    if (!target.contains(name)) append(unexpected, name);
  if (!missing.empty() || !unexpected.empty() || !mismatched.empty()) {
    std::string msg = "'" + path.string() + "' does not match the module:";
    if (!missing.empty()) msg += " missing tensors: " + missing + ";";
    if (!unexpected.empty()) msg += " unexpected tensors: " + unexpected + ";";
    if (!mismatched.empty()) msg += " shape mismatch: " + mismatched + ";";
    msg.pop_back();
    throw FormatError(msg);
  }
  for (const auto& [name, t] : target) {
    Tensor handle = t;  // shares the module's TensorImpl
    const Tensor& src = loaded.at(name);
    if (map_location) {
      handle.set_data(src.to(t.dtype()));
      if (handle.grad().defined())
        handle.mutable_grad() = handle.grad().to(*map_location);  // as Module::to
    } else {
      handle.copy_(src);
    }
  }
}

}  // namespace hetero
