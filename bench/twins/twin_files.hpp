// SPDX-License-Identifier: Apache-2.0
#pragma once
// The libtorch twins' side of `--twin-files DIR` (written by the hetero examples): a reader of
// safetensors files (the format hetero::save writes; https://huggingface.co/docs/safetensors:
// an 8-byte little-endian header length, a JSON header mapping each name to its dtype, shape
// and byte range, then the data) into libtorch tensors, and the copy of a hetero state_dict
// into a libtorch module under the twin's names. Header-only, with nlohmann-json, so that the
// twins link neither hetero nor a second safetensors library.
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace twins {

/// Every tensor of the safetensors file `file` as a contiguous cpu tensor owning its memory,
/// by name. dtypes F32, F64, I64 and U8 (what hetero's examples write); little-endian host.
/// Throws std::runtime_error naming the file (and the tensor) when it cannot be read, is
/// truncated, or holds another dtype or an entry whose byte range does not match its shape.
inline std::map<std::string, torch::Tensor> read_safetensors(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const auto fail = [&](const std::string& what) {
    return std::runtime_error(file.string() + ": " + what);
  };
  if (!in) throw fail("cannot open");
  std::uint64_t header_bytes = 0;
  in.read(reinterpret_cast<char*>(&header_bytes), sizeof header_bytes);
  const std::uint64_t size = std::filesystem::file_size(file);
  if (!in || header_bytes > size - 8) throw fail("not a safetensors file (header length)");
  std::string header(header_bytes, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_bytes));
  const nlohmann::json entries = nlohmann::json::parse(header);
  const std::uint64_t data_bytes = size - 8 - header_bytes;
  const std::map<std::string, torch::ScalarType> dtypes{{"F32", torch::kFloat32},
                                                        {"F64", torch::kFloat64},
                                                        {"I64", torch::kInt64},
                                                        {"U8", torch::kUInt8}};
  std::map<std::string, torch::Tensor> out;
  for (const auto& [name, e] : entries.items()) {
    if (name == "__metadata__") continue;
    const auto dtype = dtypes.find(e.at("dtype").get<std::string>());
    if (dtype == dtypes.end()) throw fail(name + ": dtype " + e.at("dtype").dump());
    const std::vector<std::int64_t> shape = e.at("shape").get<std::vector<std::int64_t>>();
    const auto range = e.at("data_offsets").get<std::vector<std::uint64_t>>();
    torch::Tensor t = torch::empty(shape, dtype->second);
    const auto bytes = static_cast<std::uint64_t>(t.numel() * t.element_size());
    if (range.size() != 2 || range[1] > data_bytes || range[1] < range[0] ||
        range[1] - range[0] != bytes)
      throw fail(name + ": byte range does not match shape and dtype");
    in.seekg(static_cast<std::streamoff>(8 + header_bytes + range[0]));
    in.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(bytes));
    if (!in) throw fail(name + ": truncated");
    out.emplace(name, std::move(t));
  }
  return out;
}

/// Copies hetero's state_dict `from` into `module`'s parameters and buffers: the module's
/// tensor named N takes from[rename(N)]. Every parameter and buffer of the module must be
/// found with its shape and dtype. Throws std::runtime_error naming the first tensor missing
/// or mismatched.
inline void load_state(torch::nn::Module& module, const std::map<std::string, torch::Tensor>& from,
                       const std::function<std::string(const std::string&)>& rename) {
  torch::NoGradGuard no_grad;
  const auto copy = [&](const std::string& name, torch::Tensor& to) {
    const std::string source = rename(name);
    const auto it = from.find(source);
    if (it == from.end())
      throw std::runtime_error("twin files: no tensor \"" + source + "\" for " + name);
    if (!it->second.sizes().equals(to.sizes()) || it->second.scalar_type() != to.scalar_type())
      throw std::runtime_error("twin files: \"" + source + "\" does not match " + name +
                               "'s shape or dtype");
    to.copy_(it->second);
  };
  for (auto& p : module.named_parameters()) copy(p.key(), p.value());
  for (auto& b : module.named_buffers()) copy(b.key(), b.value());
}

}  // namespace twins
