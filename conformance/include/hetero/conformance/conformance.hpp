// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file conformance.hpp
/// The conformance kit: one GoogleTest suite, parameterised by backend, that every
/// plugin runs (Hetero::conformance). A backend author calls hetero_add_backend(), which
/// builds `conformance_<name>` around run() below; nothing else is needed.
///
/// Tolerances (stated per test, against a double-precision reference): float32
/// elementwise 1e-6 relative (+1e-6 absolute, 1 ulp-ish for transcendental functions),
/// float32 reductions and GEMM 1e-5 * sqrt(k) relative to the sum of |terms|, float64
/// 1e-12 on the same scale, integers exact.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <hetero/sdk/backend.hpp>
#include <hetero/sdk/capabilities.hpp>

namespace hetero::conformance {

/// Loads the plugin at `plugin_path` (HETERO_BACKENDS may restrict discovery to it),
/// registers the suite for `backend` and runs every test. Returns the gtest exit code.
int run(int argc, char** argv, const std::string& backend, const std::string& plugin_path);
/// The exit codes of run_plugin and the hetero-conformance tool.
enum ExitCode : int {
  kPassed = 0,      ///< every test that ran passed, and at least one ran
  kFailed = 1,      ///< a test failed
  kUsage = 2,       ///< bad command line (the tool's own)
  kNotLoaded = 3,   ///< the plugin did not load, or has no backend name
  kNothingRan = 4,  ///< every test was skipped or filtered out (no device, say)
};

/// How run_plugin treats a run.
struct RunOptions {
  /// A run in which no test ran (all skipped, e.g. a GPU backend on a machine without
  /// the GPU, or filtered out) passes instead of returning kNothingRan.
  bool allow_empty = false;
};

/// The same for a prebuilt plugin whose backend name is not known in advance (the
/// hetero-conformance tool): loads `plugin_path`, takes the backend's name from its info
/// record and runs the suite for it. Returns an ExitCode: kNotLoaded, having printed why,
/// when the plugin does not load or has no backend name; kNothingRan (printed) when no
/// test ran, unless options.allow_empty.
int run_plugin(int argc, char** argv, const std::string& plugin_path,
               const RunOptions& options = {});

/// Backends the suite is instantiated for (set by run()).
std::vector<std::string> backends_under_test();

/// The op/dtype pairs the backend under test does not run, as "exp/float64", sorted (what
/// run() lists after the suite).
std::vector<std::string> unsupported_pairs();

/// How a failure names its case: "<op> <dtype> on <device>, shape [d0, d1, ...]" (e.g.
/// "add float32 on cpu:0, shape [4, 37]"); BackendTest::case_name on the kit's device.
std::string describe_case(std::string_view op, DType dtype, std::string_view device,
                          const std::vector<std::int64_t>& shape);

/// Base fixture: the backend under test, its device 0 and stream. Skips (with the
/// backend's reason) when the backend has no device: hardware absent is not a failure.
///
/// A backend may be partial (Backend::supports): tests ask runs(op, dtype) before each
/// case and leave out what the backend does not run. Those pairs are neither passed nor
/// failed: run() lists them, with their count, after the suite, and a test none of whose
/// cases the backend runs is reported as skipped with that reason.
class BackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  /// Finds the loaded backend the test's parameter names (fails when none is loaded; skips,
  /// naming its reason, when it has no device).
  void SetUp() override;
  /// Synchronises device 0's default stream, so that no work outlives the test.
  void TearDown() override;
  /// The backend under test (valid between SetUp and TearDown).
  Backend& backend() { return *backend_; }
  /// Device 0's default stream.
  Stream& stream() { return backend_->default_stream(0); }
  /// Whether the backend runs `op` on `dtype` on device 0: the op exists in the plugin's
  /// interface minor and Backend::supports says yes. When not, records the pair (see
  /// above) and returns false.
  bool runs(OpRef op, DType dtype);
  /// The plugin interface minor the backend under test was built for (its info record):
  /// calls newer than it are not in the plugin's vtable and must not be made.
  int interface_minor() const;
  /// Whether the plugin's vtable has `c`'s virtuals (Note [Optional capabilities]): call
  /// them only then.
  bool has(OptionalCapability c) const { return has_capability(interface_minor(), c); }
  /// The device the kit runs on, as a failure names it: "<backend>:0".
  std::string device_name() const { return GetParam() + ":0"; }
  /// How a failure names its case (issue #47 item 2: every failure says the op, dtype,
  /// device and shape): e.g. "add float32 on cpu:0, shape [4, 37]". `op` may carry more
  /// ("conv2d output", "sum over dims 0 2").
  std::string case_name(std::string_view op, DType dtype,
                        const std::vector<std::int64_t>& shape) const {
    return describe_case(op, dtype, device_name(), shape);
  }

  std::shared_ptr<Backend> backend_;  ///< the backend under test (see backend())
};

/// A device buffer holding `count` elements of `dtype`, filled from / read to host.
struct DeviceArray {
  /// Allocates room for `pad_elements` + `count` elements of `dtype` on `device` of `b`
  /// (the padding before the elements, for views at an offset). Throws as Backend::allocate.
  DeviceArray(Backend& b, int device, DType dtype, std::int64_t count,
              std::int64_t pad_elements = 0);
  /// Uploads host bytes (count * element_size) at element offset `pad`.
  void upload(const void* host);
  /// Downloads the elements (after synchronising the stream).
  void download(void* host);
  /// Downloads the elements and unpacks them as doubles (unpack()).
  std::vector<double> values();
  /// A view of `shape` with contiguous strides at element offset `pad` (or custom strides).
  StridedView view(const std::vector<std::int64_t>& shape,
                   std::vector<std::int64_t> strides = {}) const;

  Backend* backend;                ///< not owned; outlives the array
  int device;                      ///< the device index the buffer is on
  DType dtype;                     ///< the elements' dtype
  std::int64_t count;              ///< elements after the padding
  std::int64_t pad;                ///< elements of padding before them
  std::unique_ptr<Buffer> buffer;  ///< the allocation (pad + count elements)
};

/// Values of `dtype` in a deterministic pseudo-random pattern, stored as doubles; for
/// signed integers in [-50, 50), uint8 in [0, 100), bool 0/1, floats in [-2, 2) (positive,
/// from 1 or 0.05, when `positive`).
std::vector<double> sample_values(DType dtype, std::int64_t n, std::uint64_t seed,
                                  bool positive = false);
/// Packs doubles into host bytes of `dtype` (by convert_element: in range, exact).
std::vector<unsigned char> pack(DType dtype, const std::vector<double>& v);
/// Unpacks host bytes of `dtype` into doubles.
std::vector<double> unpack(DType dtype, const std::vector<unsigned char>& bytes);

/// Every dtype, and the floating ones.
const std::vector<DType>& all_dtypes();
/// `v` as a backend stores a result of dtype `t`: rounded to nearest even for a floating
/// dtype, wrapped modulo 2^bits for uint8, int8 and int32 (an integer `v`; 50 * 50 in int8
/// is -60); int64 and bool unchanged.
double round_to(DType t, double v);
/// One unit in the last place of `t` relative to 1 (2^-23 float32, 2^-52 float64,
/// 2^-10 float16, 2^-7 bfloat16); 0 for integer dtypes.
double epsilon(DType t);
/// float32 and float64: the dtypes the floating tests loop over.
const std::vector<DType>& floating_dtypes();
/// Shapes the kernels are checked at: 0-sized, 1, 1xN, Nx1, primes, and sizes that are
/// not multiples of any vector width.
const std::vector<std::vector<std::int64_t>>& test_shapes();

}  // namespace hetero::conformance
