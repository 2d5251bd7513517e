// SPDX-License-Identifier: Apache-2.0
#include <hetero/device.hpp>

#include <charconv>
#include <sstream>

#include <hetero/error.hpp>

namespace hetero {
namespace {

bool valid_type(std::string_view t) {
  if (t.empty() || !(t[0] >= 'a' && t[0] <= 'z')) return false;
  for (char c : t)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

[[noreturn]] void invalid(std::string_view text, std::string_view why) {
  throw InvalidDeviceError("invalid device string '" + std::string(text) +
                           "': " + std::string(why) +
                           " (expected 'type' or 'type:index', e.g. 'cpu', 'cuda', 'cuda:1')");
}

}  // namespace

Device::Device(std::string_view text) {
  if (text.empty()) invalid(text, "empty");
  const auto colon = text.find(':');
  const std::string_view type = text.substr(0, colon);
  if (!valid_type(type)) invalid(text, "device type must be lower-case letters, digits or '_'");
  type_ = std::string(type);
  if (colon == std::string_view::npos) return;
  const std::string_view idx = text.substr(colon + 1);
  if (idx.empty()) invalid(text, "missing index after ':'");
  if (idx[0] == '-') invalid(text, "index must not be negative");
  int value = 0;
  const auto [end, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), value);
  if (ec != std::errc() || end != idx.data() + idx.size())
    invalid(text, "index must be a non-negative decimal integer");
  index_ = value;
}

Device::Device(std::string_view type, int index) {
  if (!valid_type(type)) invalid(type, "device type must be lower-case letters, digits or '_'");
  if (index < 0)
    invalid(std::string(type) + ":" + std::to_string(index), "index must not be negative");
  type_ = std::string(type);
  index_ = index;
}

std::string Device::str() const {
  if (type_ == "cpu" && index_ == 0) return "cpu";
  return type_ + ":" + std::to_string(index_);
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

std::ostream& operator<<(std::ostream& os, const std::vector<Device>& ds) {
  os << '[';
  for (std::size_t i = 0; i < ds.size(); ++i) os << (i ? ", " : "") << ds[i];
  return os << ']';
}

}  // namespace hetero
