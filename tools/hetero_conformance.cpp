// SPDX-License-Identifier: Apache-2.0
// hetero-conformance: runs the conformance kit against a prebuilt backend plugin, as ggml's
// `test-backend-ops -b` or oneAPI's conformance suite: a vendor checks a libhetero-<name>.so
// without building the kit into a test of their own.
//
//   hetero-conformance --plugin path/to/libhetero-foo.so [--filter 'Backends/*Gemm*'] [--quick]
//                      [--allow-empty] [gtest flags]
//
// Exit codes (conformance::ExitCode): 0 every test that ran passed and one did (tests the
// backend cannot run are listed as unsupported), 1 a test failed, 2 usage error, 3 the
// plugin did not load (with the reason), 4 no test ran (all skipped or filtered out) unless
// --allow-empty.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <hetero/conformance/conformance.hpp>
#include <hetero/version.hpp>

namespace {
// The kit's exhaustive sweeps, which --quick leaves out: every dtype pair, every op over
// every dtype and shape, randomised stream schedules, threads. Each group keeps its other
// tests (e.g. BinaryOpsMatchReferenceWithBroadcasting, ExtremaFollowTheNaNAndTieRules,
// GemmMatchesReference, WorkRunsInQueueOrder). On PoCL (2 cores): the whole kit 8 s, these
// left out 1.2 s; with PoCL's kernel cache empty 168 s and 67 s (its compiler's time).
constexpr const char* kQuickExclusions =
    "*StridedCopyAndCastEveryDtypePair*:*FillEveryDtypeAndShape*:*UnaryOpsMatchReference*:"
    "*ReductionsMatchReference*:*ConvolutionAndPoolingMatchDirectLoops*:"
    "*GatherAndScatterAddMatchHostLoops*:*ConcurrentUseFromThreads*:"
    "*RandomisedSequencesMatchASynchronousRun*";

// A GoogleTest filter ("POSITIVE[-NEGATIVE]") with the quick exclusions added to its
// negative part.
std::string with_quick_exclusions(const std::string& filter) {
  const auto dash = filter.find('-');
  std::string positive = filter.substr(0, dash), negative;
  if (dash != std::string::npos) negative = filter.substr(dash + 1);
  if (positive.empty()) positive = "*";
  return positive + "-" + kQuickExclusions + (negative.empty() ? "" : ":" + negative);
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs hetero's conformance kit against a prebuilt backend plugin"};
  app.set_version_flag("--version", "hetero-conformance " + std::string(hetero::version().string) +
                                        " (plugin interface " +
                                        std::to_string(HETERO_INTERFACE_VERSION_MAJOR) + "." +
                                        std::to_string(HETERO_INTERFACE_VERSION_MINOR) + ")");
  std::string plugin, filter;
  bool discover = false, list = false, allow_empty = false, quick = false;
  app.add_option("--plugin", plugin, "the plugin to test (a libhetero-<name>.so)")->required();
  app.add_option("--filter", filter,
                 "GoogleTest filter over the tests, e.g. '*Gemm*' or '*Elementwise*:-*Half*'");
  app.add_flag("--list", list, "list the tests and exit");
  app.add_flag("--discover", discover,
               "also load the plugins hetero finds on its own (default: only --plugin)");
  app.add_flag("--quick", quick,
               "a representative subset: every group but its exhaustive sweeps (31 of 39 tests; "
               "on PoCL 1.2 s against 8 s, 67 s against 168 s while PoCL compiles the kernels "
               "the first time); combines with --filter");
  app.add_flag("--allow-empty", allow_empty,
               "exit 0 when no test ran (all skipped, e.g. no device, or filtered out); "
               "by default such a run exits 4");
  app.allow_extras();  // further flags go to GoogleTest (--gtest_repeat, --gtest_output, ...)
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message
    return hetero::conformance::kUsage;
  }
  // Only the plugin under test, unless asked: a plugin of the same name in hetero's own
  // directory would otherwise take the name first.
  if (!discover) ::setenv("HETERO_PLUGIN_DISCOVERY", "0", 1);
  std::vector<std::string> args{argv[0]};
  if (quick) filter = with_quick_exclusions(filter);
  if (!filter.empty()) args.push_back("--gtest_filter=" + filter);
  if (list) args.emplace_back("--gtest_list_tests");
  for (const std::string& extra : app.remaining()) args.push_back(extra);
  std::vector<char*> c_args;
  for (std::string& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  return hetero::conformance::run_plugin(static_cast<int>(args.size()), c_args.data(), plugin,
                                         {.allow_empty = allow_empty});
}
