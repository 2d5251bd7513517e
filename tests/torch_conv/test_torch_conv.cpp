// SPDX-License-Identifier: Apache-2.0
// conv2d, conv_transpose2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d and adaptive_max_pool2d,
// and their 1-d and 3-d forms, against PyTorch: make_cases.py (run by run_torch_cases.sh with
// Debian's python3-torch) writes random cases with torch's outputs and gradients; each is
// recomputed here on HETERO_TEST_DEVICE (default cpu): values, gradients of input, weight and bias,
// and an error wherever torch raised one. Tolerance: |got - want| <= tol (1 + |want|), tol 1e-4
// float32 (sums of up to 108 terms of randn values), 1e-10 float64, 2^-7 bfloat16 (both sum in
// float32 and round once: the results may differ by one unit in the last place, 2^-7 relative at
// most; make_cases.py computes bfloat16 references so on every CPU, where torch's own bfloat16
// kernel may not).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include <hetero/hetero.hpp>

#include "../torch_cases.hpp"

using namespace hetero;
using hetero::torch_cases::worst;

namespace {

Size2 size2(const nlohmann::json& j) {
  return {j[0].get<std::int64_t>(), j[1].get<std::int64_t>()};
}

std::optional<Size2> optional_size2(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  return size2(j);
}

Size3 size3(const nlohmann::json& j) {
  return {j[0].get<std::int64_t>(), j[1].get<std::int64_t>(), j[2].get<std::int64_t>()};
}

std::optional<std::int64_t> optional_int(const nlohmann::json& j) {
  return j.is_null() ? std::nullopt : std::optional<std::int64_t>(j.get<std::int64_t>());
}

// The 3-d ops (<hetero/conv3d.hpp>); nullopt for another op.
std::optional<Tensor> run3d(const nlohmann::json& a, const Tensor& x, const Tensor& w,
                            const Tensor& b) {
  const std::string op = a["op"];
  if (op == "conv3d")
    return conv3d(x, w, b, size3(a["stride"]), size3(a["padding"]), size3(a["dilation"]),
                  a["groups"].get<std::int64_t>());
  if (op == "conv_transpose3d")
    return conv_transpose3d(x, w, b, size3(a["stride"]), size3(a["padding"]),
                            size3(a["output_padding"]), a["groups"].get<std::int64_t>(),
                            size3(a["dilation"]));
  const auto stride = [&]() -> std::optional<Size3> {
    if (a["stride"].is_null()) return std::nullopt;
    return size3(a["stride"]);
  };
  if (op == "max_pool3d")
    return max_pool3d(x, size3(a["kernel"]), stride(), size3(a["padding"]), size3(a["dilation"]),
                      a["ceil_mode"].get<bool>());
  if (op == "avg_pool3d")
    return avg_pool3d(x, size3(a["kernel"]), stride(), size3(a["padding"]),
                      a["ceil_mode"].get<bool>(), a["count_include_pad"].get<bool>(),
                      optional_int(a["divisor_override"]));
  if (op == "adaptive_avg_pool3d") return adaptive_avg_pool3d(x, size3(a["output_size"]));
  if (op == "adaptive_max_pool3d") return adaptive_max_pool3d(x, size3(a["output_size"]));
  if (op == "max_unpool3d") {
    std::optional<Size3> size;
    if (!a["output_size"].is_null()) size = size3(a["output_size"]);
    return max_unpool3d(x, w, size3(a["kernel"]), stride(), size3(a["padding"]), size);
  }
  return std::nullopt;
}

// The first entry of a list argument (the 1-d unpooling's), nullopt for null.
std::optional<std::int64_t> first_or_null(const nlohmann::json& j) {
  return j.is_null() ? std::nullopt : std::optional<std::int64_t>(j[0].get<std::int64_t>());
}

// A max pool's {values, indices} through its *_with_indices form.
std::pair<Tensor, Tensor> with_indices(const nlohmann::json& a, const Tensor& x) {
  const std::string op = a["op"];
  if (op == "adaptive_max_pool1d") return adaptive_max_pool1d_with_indices(x, a["output_size"]);
  if (op == "adaptive_max_pool2d")
    return adaptive_max_pool2d_with_indices(x, size2(a["output_size"]));
  if (op == "adaptive_max_pool3d")
    return adaptive_max_pool3d_with_indices(x, size3(a["output_size"]));
  if (op == "max_pool1d")
    return max_pool1d_with_indices(x, a["kernel"], optional_int(a["stride"]), a["padding"],
                                   a["dilation"], a["ceil_mode"]);
  if (op == "max_pool3d") {
    std::optional<Size3> stride;
    if (!a["stride"].is_null()) stride = size3(a["stride"]);
    return max_pool3d_with_indices(x, size3(a["kernel"]), stride, size3(a["padding"]),
                                   size3(a["dilation"]), a["ceil_mode"]);
  }
  return max_pool2d_with_indices(x, size2(a["kernel"]), optional_size2(a["stride"]),
                                 size2(a["padding"]), size2(a["dilation"]), a["ceil_mode"]);
}

Tensor run(const nlohmann::json& a, const Tensor& x, const Tensor& w, const Tensor& b) {
  if (std::optional<Tensor> y = run3d(a, x, w, b)) return *y;
  const std::string op = a["op"];
  if (op == "conv2d")
    return conv2d(x, w, b, size2(a["stride"]), size2(a["padding"]), size2(a["dilation"]),
                  a["groups"].get<std::int64_t>());
  const auto opt = [](const nlohmann::json& j) {
    return j.is_null() ? std::nullopt : std::optional<std::int64_t>(j.get<std::int64_t>());
  };
  if (op == "conv1d") return conv1d(x, w, b, a["stride"], a["padding"], a["dilation"], a["groups"]);
  if (op == "conv_transpose1d")
    return conv_transpose1d(x, w, b, a["stride"], a["padding"], a["output_padding"], a["groups"],
                            a["dilation"]);
  if (op == "max_pool1d")
    return max_pool1d(x, a["kernel"], opt(a["stride"]), a["padding"], a["dilation"],
                      a["ceil_mode"].get<bool>());
  if (op == "avg_pool1d")
    return avg_pool1d(x, a["kernel"], opt(a["stride"]), a["padding"], a["ceil_mode"].get<bool>(),
                      a["count_include_pad"].get<bool>());
  if (op == "adaptive_avg_pool1d") return adaptive_avg_pool1d(x, a["output_size"]);
  if (op == "adaptive_max_pool1d") return adaptive_max_pool1d(x, a["output_size"]);
  if (op == "adaptive_max_pool2d") return adaptive_max_pool2d(x, size2(a["output_size"]));
  if (op == "conv_transpose2d")
    return conv_transpose2d(x, w, b, size2(a["stride"]), size2(a["padding"]),
                            size2(a["output_padding"]), a["groups"].get<std::int64_t>(),
                            size2(a["dilation"]));
  if (op == "max_unpool1d")
    return max_unpool1d(x, w, a["kernel"][0].get<std::int64_t>(), first_or_null(a["stride"]),
                        a["padding"][0].get<std::int64_t>(), first_or_null(a["output_size"]));
  if (op == "max_unpool2d") {
    std::optional<Size2> size;
    if (!a["output_size"].is_null()) size = size2(a["output_size"]);
    return max_unpool2d(x, w, size2(a["kernel"]), optional_size2(a["stride"]), size2(a["padding"]),
                        size);
  }
  if (op == "max_pool2d")
    return max_pool2d(x, size2(a["kernel"]), optional_size2(a["stride"]), size2(a["padding"]),
                      size2(a["dilation"]), a["ceil_mode"].get<bool>());
  if (op == "avg_pool2d")
    return avg_pool2d(x, size2(a["kernel"]), optional_size2(a["stride"]), size2(a["padding"]),
                      a["ceil_mode"].get<bool>(), a["count_include_pad"].get<bool>(),
                      optional_int(a["divisor_override"]));
  return adaptive_avg_pool2d(x, size2(a["output_size"]));
}

}  // namespace

TEST(TorchConv, EveryCaseMatchesTorch) {
  const torch_cases::Cases cases = torch_cases::load_cases();
  const Device& dev = cases.device;
  const nn::NamedTensors& file = cases.tensors;
  const Metadata& meta = cases.meta;
  int checked = 0, errors = 0;
  for (const auto& [key, text] : meta) {
    const nlohmann::json a = nlohmann::json::parse(text);
    SCOPED_TRACE("case " + key + ": " + text);
    const auto get = [&](const char* what) {
      const std::string name = key + "." + what;
      return file.contains(name) ? file.at(name) : Tensor();
    };
    Tensor x = get("x").clone().requires_grad_(), w = get("w"), b = get("b");
    // (max_unpool's "w" is its int64 indices)
    if (w.defined() && is_floating_point(w.dtype())) w = w.clone().requires_grad_();
    if (b.defined()) b = b.clone().requires_grad_();
    if (a.contains("error")) {
      EXPECT_THROW(run(a, x, w, b), Error);
      ++errors;
      continue;
    }
    try {
      const Tensor y = run(a, x, w, b);
      const DType t = x.dtype();
      const double tol = t == DType::float64 ? 1e-10 : t == DType::float32 ? 1e-4 : 1.0 / 128;
      EXPECT_EQ(y.dtype(), x.dtype());
      EXPECT_EQ(y.shape(), get("y").shape());
      EXPECT_LE(worst(y, get("y")), tol) << "output";
      y.backward(get("gy"));
      EXPECT_EQ(x.grad().shape(), x.shape());
      EXPECT_LE(worst(x.grad(), get("gx")), tol) << "input gradient";
      if (w.defined() && w.requires_grad()) {
        EXPECT_LE(worst(w.grad(), get("gw")), tol) << "weight gradient";
      }
      if (a.value("return_indices", false)) {  // a max pool's indices, exactly
        const auto [values, indices] = with_indices(a, x);
        EXPECT_EQ(indices.to_vector<std::int64_t>(), get("idx").to_vector<std::int64_t>())
            << "indices";
        EXPECT_EQ(values.to_vector<double>(), y.to_vector<double>()) << "values with indices";
      }
      if (b.defined()) {
        EXPECT_LE(worst(b.grad(), get("gb")), tol) << "bias gradient";
      }
      ++checked;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw " << e.what();
    }
  }
  EXPECT_GT(checked, 100);
  std::printf("torch_conv: %d cases matched torch on %s, %d refused as torch refuses\n", checked,
              dev.str().c_str(), errors);
}
