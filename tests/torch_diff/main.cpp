// SPDX-License-Identifier: Apache-2.0
// torch_diff: writes `--cases` seeded random cases, each run through hetero on `--device`,
// as JSON lines for torch_oracle.py (cases.hpp). With --verbose each case's id goes to
// stderr before it runs, so a crash names its case.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include <hetero/hetero.hpp>

#include "cases.hpp"

int main(int argc, char** argv) {
  CLI::App app{"hetero's differential test against PyTorch: the hetero side"};
  std::uint64_t seed = 24;
  std::int64_t cases = 10000, first = 0;
  std::string device = "cpu", out_path;
  bool verbose = false;
  app.add_option("--seed", seed, "seed of the case stream");
  app.add_option("--cases", cases, "how many cases");
  app.add_option("--first", first, "id of the first case (to rerun one: --first N --cases 1)");
  app.add_option("--device", device, "device to run on (cpu, cpu:1, cuda:0, opencl:0, ...)");
  app.add_option("--out", out_path, "JSON lines output file")->required();
  app.add_flag("--verbose", verbose, "print each case's id before it runs");
  CLI11_PARSE(app, argc, argv);

  const hetero::Device dev(device);
  std::ofstream out(out_path);
  if (!out) {
    std::cerr << "torch_diff: cannot write " << out_path << "\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t id = first; id < first + cases; ++id) {
    const auto spec = hetero::torch_diff::generate_case(seed, id);
    if (verbose) std::cerr << "case " << id << ": " << spec.dump() << std::endl;
    out << hetero::torch_diff::execute_case(spec, dev).dump() << '\n';
  }
  out.close();
  if (!out) {
    std::cerr << "torch_diff: writing " << out_path << " failed\n";
    return 2;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("torch_diff: %lld cases (seed %llu) on %s in %.2f s -> %s\n",
              static_cast<long long>(cases), static_cast<unsigned long long>(seed),
              dev.str().c_str(), s, out_path.c_str());
  return 0;
}
