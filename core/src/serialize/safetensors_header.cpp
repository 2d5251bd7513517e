// SPDX-License-Identifier: Apache-2.0
#include "safetensors_header.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <hetero/error.hpp>
#include <hetero/sdk/kernel_args.hpp>

namespace hetero::detail::safetensors {
namespace {

using nlohmann::json;

struct DTypeCode {
  std::string_view code;
  DType dtype;
};
// The safetensors codes hetero stores. Others (I16, U16, U32, U64, F8_*, C64) are valid
// safetensors but have no hetero dtype: reported as unsupported, not unknown.
constexpr DTypeCode kCodes[] = {
    {"F32", DType::float32},   {"F64", DType::float64}, {"I32", DType::int32},
    {"I64", DType::int64},     {"BOOL", DType::bool_},  {"F16", DType::float16},
    {"BF16", DType::bfloat16}, {"U8", DType::uint8},    {"I8", DType::int8}};
constexpr std::string_view kOtherCodes[] = {"I16",     "U16",     "U32", "U64",
                                            "F8_E4M3", "F8_E5M2", "C64"};

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw FormatError("safetensors file '" + file + "': " + what);
}
[[noreturn]] void fail(const std::string& file, const std::string& tensor,
                       const std::string& what) {
  const std::string shown = tensor.size() > 64 ? tensor.substr(0, 64) + "..." : tensor;
  fail(file, "tensor '" + shown + "': " + what);
}

// RFC 3629 UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
// Returns the byte offset of the first invalid sequence, or npos.
std::size_t invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  while (i < s.size()) {
    const unsigned c = byte(i);
    std::size_t len;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF)
      len = 2;
    else if (c == 0xE0) {
      len = 3;
      lo = 0xA0;
    } else if (c == 0xED) {
      len = 3;
      hi = 0x9F;
    } else if (c >= 0xE1 && c <= 0xEF)
      len = 3;
    else if (c == 0xF0) {
      len = 4;
      lo = 0x90;
    } else if (c == 0xF4) {
      len = 4;
      hi = 0x8F;
    } else if (c >= 0xF1 && c <= 0xF3)
      len = 4;
    else
      return i;
    if (i + len > s.size()) return i;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if ((byte(i + k) & 0xC0) != 0x80) return i;
    i += len;
  }
  return std::string_view::npos;
}

DType parse_dtype(const json& v, const std::string& file, const std::string& name) {
  if (!v.is_string()) fail(file, name, "\"dtype\" is not a string");
  const auto& code = v.get_ref<const std::string&>();
  for (const auto& c : kCodes)
    if (c.code == code) return c.dtype;
  for (const auto& c : kOtherCodes)
    if (c == code) fail(file, name, "dtype " + code + " is not supported by hetero");
  fail(file, name, "unknown dtype \"" + code.substr(0, 32) + "\"");
}

std::uint64_t as_u64(const json& v, const std::string& file, const std::string& name,
                     const char* what) {
  if (!v.is_number_unsigned())
    fail(file, name, std::string(what) + " must be non-negative integers");
  return v.get<std::uint64_t>();
}

std::vector<std::int64_t> parse_shape(const json& v, const std::string& file,
                                      const std::string& name) {
  if (!v.is_array()) fail(file, name, "\"shape\" is not an array");
  if (v.size() > static_cast<std::size_t>(kMaxDims))
    fail(file, name,
         "shape has " + std::to_string(v.size()) + " dimensions; at most " +
             std::to_string(kMaxDims) + " are supported");
  std::vector<std::int64_t> shape;
  for (const auto& d : v) {
    const auto n = as_u64(d, file, name, "shape sizes");
    if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(file, name, "shape size " + std::to_string(n) + " is too large");
    shape.push_back(static_cast<std::int64_t>(n));
  }
  return shape;
}

// Bytes of a tensor; FormatError when the product overflows 64 bits.
std::uint64_t byte_size(const Entry& e, const std::string& file) {
  std::uint64_t n = element_size(e.dtype);
  for (auto d : e.shape) {
    const auto u = static_cast<std::uint64_t>(d);
    if (u != 0 && n > std::numeric_limits<std::uint64_t>::max() / u)
      fail(file, e.name, "byte size of the shape overflows 64 bits");
    n *= u;
  }
  return n;
}

Entry parse_entry(const std::string& name, const json& v, const std::string& file) {
  if (name.empty()) fail(file, "a tensor has an empty name");
  if (!v.is_object()) fail(file, name, "entry is not a JSON object");
  for (const auto& [key, value] : v.items())
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      fail(file, name, "unexpected field \"" + key.substr(0, 32) + "\"");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!v.contains(key)) fail(file, name, std::string("missing field \"") + key + "\"");
  Entry e;
  e.name = name;
  e.dtype = parse_dtype(v["dtype"], file, name);
  e.shape = parse_shape(v["shape"], file, name);
  const json& off = v["data_offsets"];
  if (!off.is_array() || off.size() != 2)
    fail(file, name, "\"data_offsets\" is not an array of two offsets");
  e.begin = as_u64(off[0], file, name, "data_offsets");
  e.end = as_u64(off[1], file, name, "data_offsets");
  if (e.end < e.begin)
    fail(file, name,
         "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
             "] end before they begin");
  const std::uint64_t bytes = byte_size(e, file);
  if (bytes != e.end - e.begin)
    fail(file, name,
         "shape and dtype need " + std::to_string(bytes) + " bytes but data_offsets [" +
             std::to_string(e.begin) + ", " + std::to_string(e.end) + "] hold " +
             std::to_string(e.end - e.begin));
  return e;
}

std::map<std::string, std::string> parse_metadata(const json& v, const std::string& file) {
  if (!v.is_object()) fail(file, "\"__metadata__\" is not a JSON object");
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : v.items()) {
    if (!value.is_string())
      fail(file, "\"__metadata__\" value of \"" + key.substr(0, 32) + "\" is not a string");
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

// A first pass over the header with nlohmann's SAX interface, before any DOM is built:
// nesting deeper than a safetensors header has (any value inside more than 3 containers),
// a tensor name twice (a DOM keeps the last silently) and a field twice in a tensor's entry
// (the reference reader refuses both). Linear in the header: nlohmann's callback parser,
// used before, rescans a parent object after each child (quadratic in the number of
// tensors: 40k took 10 s, issue #25).
class StructureCheck final : public nlohmann::json_sax<json> {
 public:
  explicit StructureCheck(const std::string& file) : file_(file) {}
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return enter(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool end_array() override { return leave(); }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      if (!names_.insert(k).second) fail(file_, k, "name appears twice in the header");
      entry_ = k;
      fields_.clear();
    } else if (depth_ == 2 && entry_ != "__metadata__") {
      if (std::find(fields_.begin(), fields_.end(), k) != fields_.end())
        fail(file_, entry_, "field \"" + k.substr(0, 32) + "\" appears twice");
      if (fields_.size() < 8) fields_.push_back(k);  // more fields fail in parse_entry
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    fail(file_, std::string("header is not valid JSON: ") + e.what());
  }

 private:
  bool value() const {
    if (depth_ > 3) fail(file_, "header nests deeper than a safetensors header can");
    return true;
  }
  bool enter() {
    value();
    ++depth_;
    return true;
  }
  bool leave() {
    --depth_;
    return true;
  }
  const std::string& file_;
  int depth_ = 0;  // containers around the current event
  std::set<std::string> names_;
  std::string entry_;
  std::vector<std::string> fields_;
};

json parse_json(std::string_view text, const std::string& file) {
  if (text.empty() || text.front() != '{') fail(file, "header does not start with '{'");
  if (const auto at = invalid_utf8_at(text); at != std::string_view::npos)
    fail(file, "header is not valid UTF-8 (byte " + std::to_string(at) + ")");
  if (const auto at = text.find('\0'); at != std::string_view::npos)
    fail(file,
         "header has a NUL byte at byte " + std::to_string(at) + " (safetensors pads with spaces)");
  StructureCheck check(file);
  json::sax_parse(text.begin(), text.end(), &check);
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    fail(file, std::string("header is not valid JSON: ") + e.what());
  }
}

}  // namespace

std::string_view dtype_code(DType t) {
  for (const auto& c : kCodes)
    if (c.dtype == t) return c.code;
  throw DTypeError("dtype " + std::string(dtype_name(t)) + " has no safetensors code");
}

Header parse_header(std::string_view text, std::uint64_t data_bytes, const std::string& file) {
  const json root = parse_json(text, file);
  if (!root.is_object()) fail(file, "header is not a JSON object");
  Header h;
  for (const auto& [name, value] : root.items()) {
    if (name == "__metadata__")
      h.metadata = parse_metadata(value, file);
    else
      h.entries.push_back(parse_entry(name, value, file));
  }
  // The byte ranges must tile [0, data_bytes): sorted by begin, each starts where the
  // previous ended (no gap, no overlap), the last ends at the end of the file.
  std::sort(h.entries.begin(), h.entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t expected = 0;
  for (const auto& e : h.entries) {
    if (e.begin < expected) fail(file, e.name, "data_offsets overlap the previous tensor's");
    if (e.begin > expected)
      fail(
          file, e.name,
          "data_offsets leave a gap of " + std::to_string(e.begin - expected) + " bytes before it");
    if (e.end > data_bytes)
      fail(file, e.name,
           "data_offsets end at byte " + std::to_string(e.end) + " but the file holds " +
               std::to_string(data_bytes) + " data bytes (truncated?)");
    expected = e.end;
  }
  if (expected != data_bytes)
    fail(file, std::to_string(data_bytes - expected) +
                   " data bytes after the last tensor are not described by the header");
  return h;
}

std::uint64_t parse_header_length(const unsigned char (&first8)[8], std::uint64_t file_size,
                                  const std::string& file) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | first8[i];
  if (n > kMaxHeaderBytes)
    fail(file, "header length " + std::to_string(n) + " exceeds the limit of " +
                   std::to_string(kMaxHeaderBytes) + " bytes");
  if (n > file_size - 8)
    fail(file, "header length " + std::to_string(n) + " runs past the end of the file (" +
                   std::to_string(file_size) + " bytes; truncated?)");
  return n;
}

Header parse_file(std::string_view bytes, const std::string& file) {
  if (bytes.size() < 8)
    fail(file, std::to_string(bytes.size()) +
                   " bytes, too short for the 8-byte header length (truncated?)");
  unsigned char first8[8];
  std::memcpy(first8, bytes.data(), 8);
  const std::uint64_t n = parse_header_length(first8, bytes.size(), file);
  return parse_header(bytes.substr(8, n), bytes.size() - 8 - n, file);
}

std::string make_header(const std::vector<Entry>& entries,
                        const std::map<std::string, std::string>& metadata) {
  // ordered_json keeps the tensors in offset order, as readers display them.
  // Names and metadata must be UTF-8 (JSON text; the reader refuses anything else).
  const auto check_utf8 = [](const std::string& s, const char* what) {
    if (const auto at = invalid_utf8_at(s); at != std::string_view::npos)
      throw Error(std::string("save: ") + what + " '" + s.substr(0, 64) +
                  "' is not valid UTF-8 (byte " + std::to_string(at) + ")");
  };
  for (const auto& [k, v] : metadata) {
    check_utf8(k, "metadata key");
    check_utf8(v, "metadata value");
  }
  for (const auto& e : entries) check_utf8(e.name, "tensor name");
  nlohmann::ordered_json root = nlohmann::ordered_json::object();
  if (!metadata.empty()) root["__metadata__"] = metadata;
  for (const auto& e : entries)
    root[e.name] = {
        {"dtype", dtype_code(e.dtype)}, {"shape", e.shape}, {"data_offsets", {e.begin, e.end}}};
  std::string text = root.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

}  // namespace hetero::detail::safetensors
