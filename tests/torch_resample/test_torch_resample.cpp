// SPDX-License-Identifier: Apache-2.0
// pad and interpolate against PyTorch: make_cases.py (run by run_torch_cases.sh with Debian's
// python3-torch) writes random cases with torch's outputs and input gradients; each is
// recomputed here on HETERO_TEST_DEVICE (default cpu): the output's shape, dtype and values,
// the gradient, and an error wherever torch raised one. Tolerance |got - want| <= tol
// (1 + |want|): float64 1e-12 (the same formulas in the same order), float32 1e-5 (torch's
// kernels may contract a multiply-add into one rounding), bfloat16 2^-7 (both round one
// float32 result: one unit in the last place).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include <hetero/hetero.hpp>

#include "../torch_cases.hpp"

using namespace hetero;
using hetero::torch_cases::worst;

namespace {

PadMode pad_mode(const std::string& m) {
  if (m == "reflect") return PadMode::reflect;
  if (m == "replicate") return PadMode::replicate;
  if (m == "circular") return PadMode::circular;
  return PadMode::constant;
}

InterpolateMode interpolate_mode(const std::string& m) {
  for (InterpolateMode mode :
       {InterpolateMode::nearest, InterpolateMode::nearest_exact, InterpolateMode::linear,
        InterpolateMode::bilinear, InterpolateMode::bicubic, InterpolateMode::trilinear,
        InterpolateMode::area})
    if (interpolate_mode_name(mode) == m) return mode;
  throw std::runtime_error("unknown mode " + m);
}

// A JSON number or list of numbers as a vector (torch's int-or-tuple), empty for null.
template <class T>
std::vector<T> values(const nlohmann::json& j) {
  if (j.is_null()) return {};
  if (j.is_number()) return {j.get<T>()};
  return j.get<std::vector<T>>();
}

Tensor run(const nlohmann::json& a, const Tensor& x) {
  if (a["op"] == "pad")
    return pad(x, a["pad"].get<std::vector<std::int64_t>>(), pad_mode(a["mode"]), a["value"]);
  InterpolateOptions o;
  o.size = values<std::int64_t>(a["size"]);
  o.scale_factor = values<double>(a["scale_factor"]);
  o.mode = interpolate_mode(a["mode"]);
  if (!a["align_corners"].is_null()) o.align_corners = a["align_corners"].get<bool>();
  if (!a["recompute_scale_factor"].is_null())
    o.recompute_scale_factor = a["recompute_scale_factor"].get<bool>();
  return interpolate(x, o);
}

}  // namespace

TEST(TorchResample, EveryCaseMatchesTorch) {
  const torch_cases::Cases cases = torch_cases::load_cases();
  const nn::NamedTensors& file = cases.tensors;
  int checked = 0, errors = 0;
  for (const auto& [key, text] : cases.meta) {
    const nlohmann::json a = nlohmann::json::parse(text);
    SCOPED_TRACE("case " + key + ": " + text);
    const auto get = [&](const char* what) {
      const std::string name = key + "." + what;
      return file.contains(name) ? file.at(name) : Tensor();
    };
    const Tensor x = get("x").clone().requires_grad_();
    if (a.contains("error")) {
      EXPECT_THROW(run(a, x), Error);
      ++errors;
      continue;
    }
    try {
      const Tensor y = run(a, x);
      const DType t = x.dtype();
      const double tol = t == DType::float64 ? 1e-12 : t == DType::float32 ? 1e-5 : 1.0 / 128;
      EXPECT_EQ(y.dtype(), t);
      EXPECT_EQ(y.shape(), get("y").shape());
      EXPECT_LE(worst(y, get("y")), tol) << "output";
      if (!a.contains("backward_error")) {
        y.backward(get("gy"));
        ASSERT_TRUE(x.grad().defined());
        EXPECT_EQ(x.grad().shape(), x.shape());
        // The gradient sums up to 16 terms (bicubic: 4 taps per dimension).
        EXPECT_LE(worst(x.grad(), get("gx")), 4 * tol) << "input gradient";
      }
      ++checked;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw " << e.what();
    }
  }
  EXPECT_GT(checked, 100);
  std::printf("torch_resample: %d cases matched torch on %s, %d refused as torch refuses\n",
              checked, cases.device.str().c_str(), errors);
}
