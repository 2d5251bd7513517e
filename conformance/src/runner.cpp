// SPDX-License-Identifier: Apache-2.0
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include <hetero/conformance/conformance.hpp>
#include <hetero/error.hpp>
#include <hetero/plugins.hpp>
#include <hetero/sdk/dtype_dispatch.hpp>
#include <hetero/sdk/element_conversion.hpp>
#include <hetero/sdk/find_backend.hpp>
#include <hetero/sdk/half.hpp>

namespace hetero::conformance {
namespace {
std::vector<std::string>& registered() {
  static std::vector<std::string> names;
  return names;
}

std::set<std::string>& unsupported() {
  static std::set<std::string> pairs;
  return pairs;
}
std::mutex& unsupported_mutex() {
  static std::mutex m;
  return m;
}

// The interface minor of the plugin providing `backend` (its info record's).
int plugin_minor(const std::string& backend) {
  for (const auto& s : backend_status())
    if (s.name == backend && s.loaded) return s.interface_minor;
  return 0;
}
}  // namespace

std::vector<std::string> backends_under_test() { return registered(); }

std::vector<std::string> unsupported_pairs() {
  std::lock_guard lock(unsupported_mutex());
  return {unsupported().begin(), unsupported().end()};
}

int BackendTest::interface_minor() const { return plugin_minor(GetParam()); }

bool BackendTest::runs(OpRef op, DType dtype) {
  if (op_since(op) <= plugin_minor(GetParam()) && backend().supports(op, dtype, 0)) return true;
  std::lock_guard lock(unsupported_mutex());
  unsupported().insert(std::string(op_name(op)) + "/" + std::string(dtype_name(dtype)));
  return false;
}

std::string describe_case(std::string_view op, DType dtype, std::string_view device,
                          const std::vector<std::int64_t>& shape) {
  std::string s = std::string(op) + " " + std::string(dtype_name(dtype)) + " on " +
                  std::string(device) + ", shape [";
  for (std::size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "]";
}

namespace {
// After the suite: what the backend does not run, never counted as passed or failed.
int report_unsupported(int rc, const std::string& backend) {
  const auto pairs = unsupported_pairs();
  std::cout << "[conformance] backend '" << backend << "': " << pairs.size()
            << " op/dtype pair(s) unsupported (skipped, Backend::supports)"
            << (pairs.empty() ? "" : ":");
  for (const auto& p : pairs) std::cout << " " << p;
  std::cout << "\n";
  return rc;
}
}  // namespace

namespace {
// Loads the plugin and says so; the loaded status, or nullopt (printed) when it failed.
std::optional<BackendStatus> load_and_report(const std::string& plugin_path) {
  try {
    const BackendStatus s = load_plugin(plugin_path);
    std::cout << "[conformance] backend '" << s.name << "' from " << s.path << ": "
              << (s.loaded ? "loaded" : "not loaded") << ", " << s.devices << " device(s)"
              << (s.reason.empty() ? "" : " (" + s.reason + ")") << "\n";
    return s;
  } catch (const Error& e) {
    std::cerr << "[conformance] " << e.what() << "\n";
    return std::nullopt;
  }
}

// Where the kit's sources are on this machine (issue #47 item 2: a failure's location must
// exist where the kit runs): the tree it was built from, else the copy installed under
// <datadir>/hetero/conformance/src (found from the core's plugin directory, so a moved
// prefix works), else a name that says they are not here.
const std::string& kit_sources() {
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(fs::path(HETERO_CONFORMANCE_SOURCE_DIR) / "runner.cpp", ec))
      return std::string(HETERO_CONFORMANCE_SOURCE_DIR);
    const std::string plugins = default_plugin_dir();
    if (!plugins.empty()) {
      const fs::path installed =
          fs::weakly_canonical(fs::path(plugins) / HETERO_CONFORMANCE_SOURCES_FROM_PLUGINS, ec);
      if (!ec && fs::exists(installed / "runner.cpp", ec)) return installed.string();
    }
    return std::string("<hetero's conformance/src, not installed here>");
  }();
  return dir;
}

// `text` with each path to one of the kit's sources ("<dir>/conformance/src/<file>", as
// __FILE__ gives it: absolute, or relative to the build directory where ccache's
// CCACHE_BASEDIR rewrote the compile's paths, as tools/run_tests.sh does) pointing into
// kit_sources() instead.
std::string located(std::string text) {
  static const std::string marker = "conformance/src/";
  const std::string& dir = kit_sources();
  for (std::size_t at = text.find(marker); at != std::string::npos;) {
    std::size_t start = at;  // back to the start of the path
    while (start > 0 && !std::isspace(static_cast<unsigned char>(text[start - 1]))) --start;
    const std::size_t end = at + marker.size();
    text.replace(start, end - start, dir + "/");
    at = text.find(marker, start + dir.size() + 1);
  }
  return text;
}

// GoogleTest's own printer, given each failure with its file (and the file:line of any
// SCOPED_TRACE in its message) where the kit's sources are on this machine.
class LocatingPrinter : public ::testing::TestEventListener {
 public:
  explicit LocatingPrinter(::testing::TestEventListener* printer) : printer_(printer) {}
  void OnTestProgramStart(const ::testing::UnitTest& u) override {
    printer_->OnTestProgramStart(u);
  }
  void OnTestIterationStart(const ::testing::UnitTest& u, int i) override {
    printer_->OnTestIterationStart(u, i);
  }
  void OnEnvironmentsSetUpStart(const ::testing::UnitTest& u) override {
    printer_->OnEnvironmentsSetUpStart(u);
  }
  void OnEnvironmentsSetUpEnd(const ::testing::UnitTest& u) override {
    printer_->OnEnvironmentsSetUpEnd(u);
  }
  void OnTestSuiteStart(const ::testing::TestSuite& s) override { printer_->OnTestSuiteStart(s); }
  void OnTestCaseStart(const ::testing::TestCase& s) override { printer_->OnTestCaseStart(s); }
  void OnTestStart(const ::testing::TestInfo& t) override { printer_->OnTestStart(t); }
  void OnTestDisabled(const ::testing::TestInfo& t) override { printer_->OnTestDisabled(t); }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    const std::string file = r.file_name() ? located(r.file_name()) : std::string();
    const std::string message = located(r.message());
    printer_->OnTestPartResult(::testing::TestPartResult(
        r.type(), r.file_name() ? file.c_str() : nullptr, r.line_number(), message.c_str()));
  }
  void OnTestEnd(const ::testing::TestInfo& t) override { printer_->OnTestEnd(t); }
  void OnTestSuiteEnd(const ::testing::TestSuite& s) override { printer_->OnTestSuiteEnd(s); }
  void OnTestCaseEnd(const ::testing::TestCase& s) override { printer_->OnTestCaseEnd(s); }
  void OnEnvironmentsTearDownStart(const ::testing::UnitTest& u) override {
    printer_->OnEnvironmentsTearDownStart(u);
  }
  void OnEnvironmentsTearDownEnd(const ::testing::UnitTest& u) override {
    printer_->OnEnvironmentsTearDownEnd(u);
  }
  void OnTestIterationEnd(const ::testing::UnitTest& u, int i) override {
    printer_->OnTestIterationEnd(u, i);
  }
  void OnTestProgramEnd(const ::testing::UnitTest& u) override { printer_->OnTestProgramEnd(u); }

 private:
  std::unique_ptr<::testing::TestEventListener> printer_;
};

int run_suite(int argc, char** argv, const std::string& backend) {
  // The suite's parameter generator runs inside InitGoogleTest: register first.
  registered().push_back(backend);
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (auto* printer = listeners.Release(listeners.default_result_printer()))
    listeners.Append(new LocatingPrinter(printer));
  return report_unsupported(RUN_ALL_TESTS(), backend);
}

// Whether the last RUN_ALL_TESTS ran a test to completion (passed or failed, not skipped).
bool any_test_ran() {
  const ::testing::UnitTest& u = *::testing::UnitTest::GetInstance();
  return u.successful_test_count() + u.failed_test_count() > 0;
}
}  // namespace

int run(int argc, char** argv, const std::string& backend, const std::string& plugin_path) {
  if (!load_and_report(plugin_path)) return 1;
  return run_suite(argc, argv, backend);
}

int run_plugin(int argc, char** argv, const std::string& plugin_path, const RunOptions& options) {
  const auto s = load_and_report(plugin_path);
  if (!s) return kNotLoaded;
  if (!s->loaded || s->name.empty()) {
    std::cerr << "[conformance] " << plugin_path << ": the plugin did not load"
              << (s->reason.empty() ? "" : ": " + s->reason) << "\n";
    return kNotLoaded;
  }
  const int rc = run_suite(argc, argv, s->name);
  const bool listing = ::testing::GTEST_FLAG(list_tests);
  if (rc != 0 || listing || options.allow_empty || any_test_ran())
    return rc == 0 ? kPassed : kFailed;
  const ::testing::UnitTest& u = *::testing::UnitTest::GetInstance();
  std::cerr << "[conformance] backend '" << s->name << "': no test ran (" << u.skipped_test_count()
            << " skipped, " << u.total_test_count() - u.test_to_run_count()
            << " filtered out): nothing was checked"
            << (s->devices == 0 ? " (the backend has no device here)" : "")
            << "; --allow-empty accepts such a run\n";
  return kNothingRan;
}

void BackendTest::SetUp() {
  backend_ = find_backend(GetParam());
  ASSERT_NE(backend_, nullptr) << "backend '" << GetParam() << "' is not loaded";
  if (backend_->device_count() == 0)
    GTEST_SKIP() << "backend '" << GetParam()
                 << "' has no device: " << backend_->unavailable_reason();
}

void BackendTest::TearDown() {
  if (backend_ && backend_->device_count() > 0) backend_->default_stream(0).synchronize();
}

DeviceArray::DeviceArray(Backend& b, int dev, DType t, std::int64_t n, std::int64_t pad_elements)
    : backend(&b), device(dev), dtype(t), count(n), pad(pad_elements) {
  buffer = b.allocate(dev, static_cast<std::size_t>(n + pad) * element_size(t));
}

void DeviceArray::upload(const void* host) {
  backend->copy_host_to_device(host, *buffer, static_cast<std::size_t>(pad) * element_size(dtype),
                               static_cast<std::size_t>(count) * element_size(dtype),
                               backend->default_stream(device));
  backend->default_stream(device).synchronize();
}

void DeviceArray::download(void* host) {
  backend->copy_device_to_host(*buffer, static_cast<std::size_t>(pad) * element_size(dtype), host,
                               static_cast<std::size_t>(count) * element_size(dtype),
                               backend->default_stream(device));
  backend->default_stream(device).synchronize();
}

std::vector<double> DeviceArray::values() {
  std::vector<unsigned char> raw(static_cast<std::size_t>(count) * element_size(dtype));
  download(raw.data());
  return unpack(dtype, raw);
}

StridedView DeviceArray::view(const std::vector<std::int64_t>& shape,
                              std::vector<std::int64_t> strides) const {
  StridedView v;
  v.buffer = buffer.get();
  v.offset = pad;
  v.dtype = dtype;
  v.ndim = static_cast<int>(shape.size());
  if (strides.empty()) {
    strides.assign(shape.size(), 1);
    for (int d = v.ndim - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * std::max<std::int64_t>(shape[d + 1], 1);
  }
  for (int d = 0; d < v.ndim; ++d) {
    v.shape[d] = shape[d];
    v.strides[d] = strides[d];
  }
  return v;
}

std::vector<double> sample_values(DType t, std::int64_t n, std::uint64_t seed, bool positive) {
  std::vector<double> v(static_cast<std::size_t>(n));
  std::uint64_t x = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& e : v) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(x >> 11) * 0x1.0p-53;  // [0, 1)
    switch (t) {
      case DType::float32:
        e = static_cast<float>(positive ? 0.05 + 2 * u : 4 * u - 2);
        break;
      case DType::float64:
        e = positive ? 0.05 + 2 * u : 4 * u - 2;
        break;
      case DType::int8:
      case DType::int32:
      case DType::int64:
        e = std::floor(positive ? 1 + 50 * u : 100 * u - 50);
        break;
      case DType::uint8:
        e = std::floor(positive ? 1 + 50 * u : 100 * u);
        break;
      case DType::bool_:
        e = u < 0.5 ? 0 : 1;
        break;
      case DType::float16:
      case DType::bfloat16:
        e = round_to(t, positive ? 0.05 + 2 * u : 4 * u - 2);
        break;
    }
  }
  return v;
}

std::vector<unsigned char> pack(DType t, const std::vector<double>& v) {
  std::vector<unsigned char> out(v.size() * element_size(t));
  dispatch_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const T x = convert_element<T>(v[i]);
      std::memcpy(out.data() + i * sizeof(T), &x, sizeof(T));
    }
  });
  return out;
}

std::vector<double> unpack(DType t, const std::vector<unsigned char>& bytes) {
  std::vector<double> out(bytes.size() / element_size(t));
  dispatch_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    for (std::size_t i = 0; i < out.size(); ++i) {
      T x;
      std::memcpy(&x, bytes.data() + i * sizeof(T), sizeof(T));
      out[i] = convert_element<double>(x);
    }
  });
  return out;
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> v{DType::float32,  DType::float64, DType::int32,
                                    DType::int64,    DType::bool_,   DType::float16,
                                    DType::bfloat16, DType::uint8,   DType::int8};
  return v;
}

double round_to(DType t, double v) {
  switch (t) {
    case DType::float32:
      return static_cast<float>(v);
    case DType::float16:
      return static_cast<float>(convert_element<Half>(v));
    case DType::bfloat16:
      return static_cast<float>(convert_element<BFloat16>(v));
    case DType::uint8:  // wrapped modulo 2^bits, as the kernels' integer arithmetic
      return static_cast<std::uint8_t>(static_cast<std::int64_t>(v));
    case DType::int8:
      return static_cast<std::int8_t>(static_cast<std::uint8_t>(static_cast<std::int64_t>(v)));
    case DType::int32:
      return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::int64_t>(v)));
    default:
      return v;
  }
}

double epsilon(DType t) {
  switch (t) {
    case DType::float32:
      return 0x1.0p-23;
    case DType::float64:
      return 0x1.0p-52;
    case DType::float16:
      return 0x1.0p-10;
    case DType::bfloat16:
      return 0x1.0p-7;
    default:
      return 0;
  }
}
const std::vector<DType>& floating_dtypes() {
  static const std::vector<DType> v{DType::float32, DType::float64};
  return v;
}
const std::vector<std::vector<std::int64_t>>& test_shapes() {
  static const std::vector<std::vector<std::int64_t>> v{
      {1},      {7},       {1, 13}, {13, 1},
      {17, 31}, {2, 3, 5}, {4099},  {64, 129}};  // never empty (backend.hpp)
  return v;
}

}  // namespace hetero::conformance
