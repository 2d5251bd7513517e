// SPDX-License-Identifier: Apache-2.0
// hetero-conformance: runs the conformance kit against a prebuilt backend plugin, as ggml's
// `test-backend-ops -b` or oneAPI's conformance suite: a vendor checks a libhetero-<name>.so
// without building the kit into a test of their own.
//
//   hetero-conformance --plugin path/to/libhetero-foo.so [--filter 'Backends/*Gemm*'] [gtest flags]
//
// Exit codes: 0 every test passed (tests the backend cannot run are listed as unsupported),
// 1 a test failed, 2 the plugin did not load (with the reason), 106 usage error (CLI11).
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <hetero/conformance/conformance.hpp>
#include <hetero/version.hpp>

int main(int argc, char** argv) {
  CLI::App app{"Runs hetero's conformance kit against a prebuilt backend plugin"};
  app.set_version_flag("--version", "hetero-conformance " + std::string(hetero::version().string) +
                                        " (plugin interface " +
                                        std::to_string(HETERO_INTERFACE_VERSION_MAJOR) + "." +
                                        std::to_string(HETERO_INTERFACE_VERSION_MINOR) + ")");
  std::string plugin, filter;
  bool discover = false, list = false;
  app.add_option("--plugin", plugin, "the plugin to test (a libhetero-<name>.so)")->required();
  app.add_option("--filter", filter,
                 "GoogleTest filter over the tests, e.g. '*Gemm*' or '*Elementwise*:-*Half*'");
  app.add_flag("--list", list, "list the tests and exit");
  app.add_flag("--discover", discover,
               "also load the plugins hetero finds on its own (default: only --plugin)");
  app.allow_extras();  // further flags go to GoogleTest (--gtest_repeat, --gtest_output, ...)
  CLI11_PARSE(app, argc, argv);
  // Only the plugin under test, unless asked: a plugin of the same name in hetero's own
  // directory would otherwise take the name first.
  if (!discover) ::setenv("HETERO_PLUGIN_DISCOVERY", "0", 1);
  std::vector<std::string> args{argv[0]};
  if (!filter.empty()) args.push_back("--gtest_filter=" + filter);
  if (list) args.emplace_back("--gtest_list_tests");
  for (const std::string& extra : app.remaining()) args.push_back(extra);
  std::vector<char*> c_args;
  for (std::string& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  return hetero::conformance::run_plugin(static_cast<int>(args.size()), c_args.data(), plugin);
}
