// SPDX-License-Identifier: Apache-2.0
// hetero::save / load_file against an independent reader and writer
// (safetensors_interop.py: json, struct and NumPy only, run with the first Python 3 that
// has NumPy: /usr/bin/python3, then python3 on PATH).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <hetero/hetero.hpp>

namespace {
using namespace hetero;
namespace fs = std::filesystem;

// The reference tensors, as safetensors_interop.py's reference() defines them.
nn::NamedTensors reference(const Device& d) {
  nn::NamedTensors t;
  std::vector<float> f32;
  for (int i = 0; i < 6; ++i) f32.push_back(static_cast<float>(i) * 0.5f - 1.25f);
  t.push_back("layer.weight", from_vector(f32, {2, 3}, d));
  t.push_back("f64", from_vector(std::vector<double>{0.0, 1.0 / 3, 2.0 / 3, 1.0}, {4}, d));
  t.push_back("i64", from_vector(std::vector<std::int64_t>{-5, 1000000002, 2000000009}, {3}, d));
  t.push_back("i32", from_vector(std::vector<std::int32_t>{0, -7, -14, -21}, {2, 2}, d));
  t.push_back("mask", from_vector(std::vector<std::int64_t>{1, 0, 1, 0, 1}, {5},
                                  TensorOptions(d).dtype(DType::bool_)));
  t.push_back("half", from_vector(std::vector<float>{1.5f, -2.25f, 65504.0f, std::ldexp(1.0f, -24)},
                                  {4}, TensorOptions(d).dtype(DType::float16)));
  t.push_back("bhalf", from_vector(std::vector<float>{1.0f, -3.5f, 256.0f}, {3},
                                   TensorOptions(d).dtype(DType::bfloat16)));
  t.push_back("pixels", from_vector(std::vector<std::uint8_t>{0, 128, 255}).to(d));
  t.push_back("quantised", from_vector(std::vector<std::int8_t>{-128, 0, 1, 127}, {2, 2}).to(d));
  t.push_back("scalar", full({}, 42.0, d));
  t.push_back("empty", zeros({0, 3}, d));
  return t;
}

std::string script() { return std::string(HETERO_TEST_SOURCE_DIR) + "/safetensors_interop.py"; }

// The first of /usr/bin/python3 and PATH's python3 that imports NumPy, or empty.
const std::string& python_with_numpy() {
  static const std::string found = [] {
    for (const char* candidate : {"/usr/bin/python3", "python3"}) {
      const std::string probe = std::string(candidate) + " -c 'import numpy' >/dev/null 2>&1";
      if (std::system(probe.c_str()) == 0) return std::string(candidate);
    }
    return std::string();
  }();
  return found;
}

#define REQUIRE_NUMPY()            \
  if (python_with_numpy().empty()) \
  FAIL() << "these tests need Python 3 with NumPy: install it (apt install python3-numpy)"

int run_python(const std::string& mode, const fs::path& file) {
  const std::string cmd =
      python_with_numpy() + " '" + script() + "' " + mode + " '" + file.string() + "'";
  return std::system(cmd.c_str());
}

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("hetero_interop_" + std::to_string(::getpid()) + "_" + name);
}

void expect_same(const nn::NamedTensors& got, const nn::NamedTensors& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (const auto& [name, t] : expected) {
    ASSERT_TRUE(got.contains(name)) << name;
    const Tensor& g = got.at(name);
    EXPECT_EQ(g.dtype(), t.dtype()) << name;
    EXPECT_EQ(g.shape(), t.shape()) << name;
    EXPECT_EQ(g.to_vector<double>(), t.to_vector<double>()) << name;
  }
}

TEST(SafetensorsInterop, HeteroFileReadByNumpyReader) {
  REQUIRE_NUMPY();
  const fs::path file = temp_file("from_hetero.safetensors");
  // Tensors on the second virtual device when there is one: saving reads from any device.
  const Device d = device_count("cpu") > 1 ? Device("cpu:1") : Device::cpu();
  save(reference(d), file, {{"format", "pt"}});
  EXPECT_EQ(run_python("read", file), 0);
  EXPECT_EQ(load_metadata(file).at("format"), "pt");
  fs::remove(file);
}

TEST(SafetensorsInterop, NumpyFileLoadedByHetero) {
  REQUIRE_NUMPY();
  const fs::path file = temp_file("from_numpy.safetensors");
  ASSERT_EQ(run_python("write", file), 0);
  expect_same(load_file(file), reference(Device::cpu()));
  EXPECT_EQ(load_metadata(file).at("writer"), "numpy");
  fs::remove(file);
}

}  // namespace
