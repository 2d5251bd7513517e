// SPDX-License-Identifier: Apache-2.0
#pragma once
// The safetensors header: parsing and validation of untrusted bytes, and writing.
// Depends only on nlohmann-json and hetero/error.hpp, so the libFuzzer target compiles it
// on its own (tests/fuzz/fuzz_safetensors.cpp).
//
// Format (https://github.com/huggingface/safetensors, "Format"): an 8-byte little-endian
// unsigned header length N, N bytes of UTF-8 JSON, then the data buffer. The JSON object
// maps each tensor name to {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
// (byte offsets into the data buffer) plus an optional "__metadata__" string->string map.
// Data is C order, little-endian; the tensors' byte ranges tile the buffer without gaps.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <hetero/dtype.hpp>

namespace hetero::detail::safetensors {

/// Largest header accepted, in bytes (the reference implementation's limit).
inline constexpr std::uint64_t kMaxHeaderBytes = 100u * 1000u * 1000u;

/// One tensor of the file: name, dtype, shape and its byte range in the data buffer.
struct Entry {
  std::string name;
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;  ///< bytes from the start of the data buffer
  std::uint64_t end = 0;    ///< one past the last byte
};

/// A validated header: entries in file order (ascending offsets) and the metadata.
struct Header {
  std::vector<Entry> entries;
  std::map<std::string, std::string> metadata;
};

/// The safetensors dtype code of `t` ("F32", "BF16", ...).
std::string_view dtype_code(DType t);

/// Parses and validates a header. `json` is the N header bytes; `data_bytes` the size
/// of the data buffer that follows it in the file; `file` names the file in messages.
/// Checks: valid UTF-8; a JSON object whose values are objects with exactly dtype,
/// shape and data_offsets (unique names, nesting depth <= 3); known dtypes; shapes of at
/// most kMaxDims non-negative sizes whose byte size (overflow-checked) equals the byte
/// range; ranges contiguous from 0, non-overlapping and ending at data_bytes; metadata a
/// string->string map. Allocates only in proportion to `json`. Throws FormatError naming
/// the file, the tensor (where there is one) and the defect.
Header parse_header(std::string_view json, std::uint64_t data_bytes, const std::string& file);

/// The header length N from the first 8 bytes of a file of `file_size` bytes (which the
/// caller has checked is >= 8). FormatError when N exceeds kMaxHeaderBytes or runs past
/// the end of the file.
std::uint64_t parse_header_length(const unsigned char (&first8)[8], std::uint64_t file_size,
                                  const std::string& file);

/// Validates a whole file held in memory (length, header, data size): what load_file
/// checks before it reads any tensor. Used by the fuzz target.
Header parse_file(std::string_view bytes, const std::string& file);

/// The header bytes for `entries` (offsets already assigned) and `metadata`, padded
/// with spaces to a multiple of 8 bytes, as the reference writer does.
std::string make_header(const std::vector<Entry>& entries,
                        const std::map<std::string, std::string>& metadata);

}  // namespace hetero::detail::safetensors
