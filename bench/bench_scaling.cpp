// SPDX-License-Identifier: Apache-2.0
// Exercise 4: two large matrix products on two devices at the same time vs one after the
// other on one device. Here the devices are cpu:0 and cpu:1 (HETERO_CPU_DEVICES=2, set
// by this program when unset: with two cores each device then has one thread); with two
// GPUs, cuda:0 and cuda:1 as well. bench/report.py prints the scaling factor
// sequential / concurrent (2.0 is perfect).
#include <cstdlib>
#include <string>
#include <vector>

#include "common.hpp"

namespace {

using namespace hetero;

void register_pair(const Device& d0, const Device& d1, std::int64_t n) {
  const std::string tag = "exercise4/" + d0.str() + "+" + d1.str() + "/" + std::to_string(n) + "/";
  auto operands = [n](const Device& d) {
    const auto on = TensorOptions().device(d);
    std::vector<Tensor> xs{rand({n, n}, on), rand({n, n}, on)};
    synchronize(d);  // generated before any timing starts
    return xs;
  };
  bench::add(tag + "sequential_one_device", [d0, x = operands(d0), y = operands(d0)] {
    Tensor c0 = matmul(x[0], x[1]), c1 = matmul(y[0], y[1]);
    synchronize(d0);
  });
  bench::add(tag + "concurrent_two_devices", [d0, d1, x = operands(d0), y = operands(d1)] {
    Tensor c0 = matmul(x[0], x[1]), c1 = matmul(y[0], y[1]);  // both queued, then both waited for
    synchronize(d0);
    synchronize(d1);
  });
}

}  // namespace

int main(int argc, char** argv) {
  setenv("HETERO_CPU_DEVICES", "2", /*overwrite=*/0);
  for (std::int64_t n : {1024, 2048}) {
    register_pair(Device("cpu:0"), Device("cpu:1"), n);
    if (num_gpus() >= 2) register_pair(try_gpu(0), try_gpu(1), n);
  }
  return bench::run(argc, argv);
}
