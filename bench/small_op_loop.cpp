// SPDX-License-Identifier: Apache-2.0
// The small-op loop whose instruction count (valgrind --tool=callgrind) guards the op
// layer's fixed cost: 20,000 x (2x3 add, ones, sum, 2x2 matmul, exp) on cpu, then one
// synchronize. Instructions, not seconds: repeatable on a loaded machine.
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null build/bin/small_op_loop
#include <cstdlib>
#include <iostream>

#include <hetero/hetero.hpp>

int main(int argc, char** argv) {
  using namespace hetero;
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const Tensor a = ones({2, 3}), b = ones({2, 3});
  const Tensor m = ones({2, 2});
  double check = 0;
  for (int i = 0; i < n; ++i) {
    Tensor c = a + b;
    Tensor o = ones({2, 3});
    Tensor s = sum(c);
    Tensor p = matmul(m, m);
    Tensor e = exp(o);
    if (i + 1 == n) check = s.item<float>() + p.sum().item<float>() + e.sum().item<float>();
  }
  synchronize(Device::cpu());
  std::cout << "small_op_loop: " << n << " iterations, check " << check << "\n";
  return 0;
}
