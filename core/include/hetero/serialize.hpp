// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file serialize.hpp
/// Saving and loading tensors and module parameters in the safetensors format
/// (https://github.com/huggingface/safetensors): an 8-byte little-endian header length,
/// a JSON header naming each tensor's dtype, shape and byte range, then the raw
/// little-endian data in C order. Files are readable by safetensors readers of other
/// frameworks (safetensors.torch.load_file, safetensors.numpy.load_file).
/// The chapter's exercise 2: parameters are saved from and loaded onto any device.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <hetero/device.hpp>
#include <hetero/export.hpp>
#include <hetero/nn/module.hpp>

namespace hetero {

/// String metadata stored in the header's "__metadata__" (e.g. {"format": "pt"}).
using Metadata = std::map<std::string, std::string>;

/// Writes `tensors` (any devices, any dtypes, views allowed; names unique and
/// non-empty) to `path` atomically: the data goes to a temporary file in the same
/// directory (".<file>.tmp.<pid>.XXXXXX"), which is flushed to disk and then renamed over
/// `path`, so a failure at any point (an exception, a full disk, a crash) leaves the
/// previous file intact. An exception removes the temporary at once; a process killed
/// mid-write leaves it until the next save() to the same path, which removes temporaries
/// whose process is gone. Reads each tensor from its device (waits for it).
/// Throws Error naming the path and the OS error when the file cannot be written,
/// and Error for an empty or duplicate name.
HETERO_API void save(const nn::NamedTensors& tensors, const std::filesystem::path& path,
                     const Metadata& metadata = {});
/// save(state_dict) of a module: its parameters then its buffers, named as
/// torch.nn.Module.state_dict names them ("0.weight", "1.bias").
HETERO_API void save(const nn::Module& module, const std::filesystem::path& path,
                     const Metadata& metadata = {});

/// Reads every tensor of a safetensors file onto `device` (default cpu), in file order,
/// as safetensors' load_file(path, device). The header is validated completely before
/// anything is allocated (see FormatError below); the data is read in one pass.
/// Throws FormatError naming the file, the tensor and the defect for a malformed,
/// truncated or hostile file; Error when the file cannot be opened.
HETERO_API nn::NamedTensors load_file(const std::filesystem::path& path,
                                      const Device& device = Device::cpu());
/// The "__metadata__" of a safetensors file (validated as load_file does).
HETERO_API Metadata load_metadata(const std::filesystem::path& path);

/// Loads a state_dict saved by save() into `module`, as
/// module.load_state_dict(torch.load(path, map_location)): every parameter and buffer
/// must be in the file with its shape (dtype converted), and the file must hold nothing
/// else; otherwise FormatError lists the missing, unexpected and mismatched names and
/// the module is left unchanged. With `map_location`, the module's tensors are moved
/// there (in place, as Module::to, gradients too); without it each keeps its current
/// device. Not recorded by autograd; requires_grad is kept. Throws as load_file.
HETERO_API void load(nn::Module& module, const std::filesystem::path& path,
                     const std::optional<Device>& map_location = std::nullopt);

}  // namespace hetero
